-- jit_inline.lua [SECONDS]: small functions the JIT inlines into the
-- caller's trace (tests/t_jit_truth.sh).  leaf stores to a table between
-- guarded loads, so the trace's snapshots inside it hold the inlined
-- frames main > mid > leaf.  Most of the work is leaf's; -joff gives the
-- reference split.  Runs until killed, or for SECONDS of CPU time.
local secs = tonumber(arg and arg[1])
local out, vals = {}, {}
for i = 1, 1000 do vals[i] = (i * 37) % 101 end

local function leaf(i)
	out[i % 64 + 1] = i
	local a = vals[(i * 7) % 1000 + 1]
	out[i % 32 + 1] = a
	local b = vals[(i * 13) % 1000 + 1]
	out[i % 16 + 1] = b
	local c = vals[(i * 11) % 1000 + 1]
	out[i % 8 + 1] = c
	return a + b + c
end

local function mid(i)
	out[i % 4 + 1] = i
	return leaf(i) + vals[(i * 3) % 1000 + 1]
end

local x, t0 = 0, os.clock()
while not secs or os.clock() - t0 < secs do
	for i = 1, math.random(5000, 15000) do x = x + mid(i) end
end
print(x)
-- SPDX-License-Identifier: MIT
