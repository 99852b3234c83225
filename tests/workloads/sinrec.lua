-- sinrec.lua [SECONDS]: a recursion 40 Lua frames deep whose leaf calls
-- math.sin in its loop, next to a shallow Lua loop.  CPU budgets per round:
-- 80% under leaf (leaf's own code and math.sin, libm inside it), 20% in
-- shallow.  Rounds have a random length, so a fixed sampling period cannot
-- alias with them.
-- Truth: every sample under leaf has 40 dive frames below it; with the
-- JIT off, math.sin runs as a fast function calling libm's sin.
-- Runs until killed, or for SECONDS of CPU time.

local DEPTH = 40
local clock, sin = os.clock, math.sin

local function leaf(t_end, x)
	repeat
		for i = 1, 200 do x = x + sin(x + i) end
	until clock() >= t_end
	return x
end

local function dive(d, t_end, x)
	local r
	if d == 0 then r = leaf(t_end, x) else r = dive(d - 1, t_end, x) end
	return r
end

local function shallow(t_end, x)
	repeat
		for i = 1, 200 do x = (x * 1664525 + 1013904223) % 4294967296 end
	until clock() >= t_end
	return x
end

local secs = tonumber(arg and arg[1])
local x = 1
math.randomseed(os.time())
while not secs or clock() < secs do
	local round = 0.01 + 0.02 * math.random()
	local t = clock()
	x = dive(DEPTH - 1, t + 0.8 * round, x)
	x = shallow(clock() + 0.2 * round, x) % 1000
end
return x
-- SPDX-License-Identifier: MIT
