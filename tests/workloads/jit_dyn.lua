-- jit_dyn.lua [SECONDS]: inlined functions whose prototypes die every round
-- (tests/t_jit_truth.sh).  Each round compiles a fresh chunk named "=dyn",
-- runs it hot (mid and leaf inlined into its loop's trace), drops it and
-- collects: traces and prototypes are freed, and their memory reused, while
-- samples of them wait to be symbolized.  Most of the work is leaf's.
local src = [[
local out, vals = {}, {}
for i = 1, 1000 do vals[i] = (i * 37) % 101 end
local function leaf(i)
	out[i % 64 + 1] = i
	local a = vals[(i * 7) % 1000 + 1]
	out[i % 32 + 1] = a
	local b = vals[(i * 13) % 1000 + 1]
	out[i % 16 + 1] = b
	return a + b
end
local function mid(i)
	out[i % 4 + 1] = i
	return leaf(i) + vals[(i * 3) % 1000 + 1]
end
local x = 0
for i = 1, ... do x = x + mid(i) end
return x
]]
local secs = tonumber(arg and arg[1]) or 3
local t0, x = os.clock(), 0
while os.clock() - t0 < secs do
	local chunk = loadstring(src, "=dyn")
	x = x + chunk(math.random(200000, 600000))
	chunk = nil
	collectgarbage()
end
print(x)
-- SPDX-License-Identifier: MIT
