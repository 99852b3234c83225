-- cfuncs.lua [SECONDS]: time inside library C functions, split by CPU time:
--   rep_part  30%  string.rep (a lua_CFunction; under the JIT a recorded
--                  call to the C buffer helpers) plus the GC it causes
--   sort_part 30%  table.sort (C) calling the Lua comparators up/down
--   lua_part  40%  plain Lua arithmetic
-- No phase reads the clock (os.clock is a system call, C code of its own:
-- under the JIT, reading it after each string.rep took more time than the
-- rep).  Each phase runs a number of units of its work planned from its
-- cost so far; the main loop reads the clock between phases and makes up
-- in the next round what a phase got above or below its share, so over the
-- run the split is exact whatever the relative speed of the pieces.
-- What jit.p shows: it samples at the next bytecode, so C time is charged
-- to a Lua frame: string.rep's to rep_part; table.sort's mostly to the
-- comparator that runs next.  The comparators are called from C and have
-- no name, so they print as cfuncs.lua:<firstline> (22 and 23).
-- Runs until killed, or for SECONDS of CPU time.

local budget = dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "") .. "budget.lua")
local clock, rep, sort = os.clock, string.rep, table.sort
-- The comparators: the tests name them by their lines, 22 and 23
-- (tests/t_core.sh, tests/t_groundtruth.sh).
local up = function(p, q) return p < q end
local down = function(p, q) return p > q end
local arr = {}
for i = 1, 2000 do arr[i] = (i * 7919) % 2003 end

local function rep_part(n)
	local len = 0
	for _ = 1, n do len = len + #rep("abcdefgh", 4096) end
	return len
end

local function sort_part(n)
	for _ = 1, n do sort(arr, up); sort(arr, down) end
	return arr[1]
end

local function lua_part(n, x)
	for i = 1, n * 1000 do x = (x * 1664525 + 1013904223) % 4294967296 end
	return x
end

local ROUND = 0.05 -- CPU seconds per round of the three phases
-- The phases (workloads/budget.lua): share, first guess of a unit's cost.
local P = {
	rep = budget.phase(0.3, 1e-5),
	sort = budget.phase(0.3, 1e-3),
	lua = budget.phase(0.4, 1e-5),
}

local secs = tonumber(arg and arg[1])
local x, t0, t1 = 1, clock()
while not secs or t0 < secs do
	local n, want = budget.plan(P.rep, ROUND)
	rep_part(n)
	t1 = clock(); budget.settle(P.rep, want, n, t1 - t0)
	n, want = budget.plan(P.sort, ROUND)
	sort_part(n)
	t0 = clock(); budget.settle(P.sort, want, n, t0 - t1)
	n, want = budget.plan(P.lua, ROUND)
	x = lua_part(n, x)
	t1 = clock(); budget.settle(P.lua, want, n, t1 - t0)
	t0 = t1
end
return x
-- SPDX-License-Identifier: MIT
