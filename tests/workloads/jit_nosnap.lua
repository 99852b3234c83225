-- jit_nosnap.lua [SECONDS]: one function inlined into the loop's trace
-- without a snapshot, and one with snapshots (tests/t_jit_nosnap.sh).
-- sq only computes on floats (no guard, so no snapshot: nothing in the
-- trace says its code is sq's); pick loads from a table and branches on
-- the value, guards that snapshot its frame.  Runs for SECONDS of CPU
-- time, else until killed.
local secs = tonumber(arg and arg[1])
local vals = {}
for i = 1, 1000 do vals[i] = (i * 37) % 101 / 101 end

local function sq(x)
	return x * x + 0.25
end

local function pick(i)
	local v = vals[i]
	if v > 0.5 then
		return v
	end
	return 0.5
end

local acc, t0 = 0, os.clock()
while not secs or os.clock() - t0 < secs do
	for i = 1, 1000 do
		acc = acc + sq(i + 0.5) + pick(i)
	end
end
print(acc > 0)
-- SPDX-License-Identifier: MIT
