-- cfuncs.lua [SECONDS]: time inside library C functions, split by CPU time:
--   rep_part  30%  string.rep (a lua_CFunction; under the JIT a recorded
--                  call to the C buffer helpers) plus the GC it causes
--   sort_part 30%  table.sort (C) calling the Lua comparators up/down
--   lua_part  40%  plain Lua arithmetic
-- Each phase runs until its CPU-time budget is used (os.clock), so the
-- split holds whatever the relative speed of the pieces.
-- What jit.p shows: it samples at the next bytecode, so C time is charged
-- to a Lua frame: string.rep's to rep_part; table.sort's mostly to the
-- comparator that runs next.  The comparators are called from C and have
-- no name, so they print as cfuncs.lua:<firstline> (22 and 23).
-- Runs until killed, or for SECONDS of CPU time.

local clock, rep, sort = os.clock, string.rep, table.sort

local function rep_part(stop)
	local n = 0
	repeat n = n + #rep("abcdefgh", 4096) until clock() >= stop
	return n
end

local up = function(p, q) return p < q end
local down = function(p, q) return p > q end
local arr = {}
for i = 1, 2000 do arr[i] = (i * 7919) % 2003 end

local function sort_part(stop)
	repeat sort(arr, up); sort(arr, down) until clock() >= stop
	return arr[1]
end

local function lua_part(stop, x)
	repeat
		for i = 1, 20000 do x = (x * 1664525 + 1013904223) % 4294967296 end
	until clock() >= stop
	return x
end

local secs = tonumber(arg and arg[1])
local ROUND = 0.05 -- CPU seconds per round of the three phases
local x = 1
while not secs or clock() < secs do
	rep_part(clock() + 0.30 * ROUND)
	sort_part(clock() + 0.30 * ROUND)
	x = lua_part(clock() + 0.40 * ROUND, x)
end
return x
