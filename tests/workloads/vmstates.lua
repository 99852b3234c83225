-- vmstates.lua [SECONDS]: CPU time split 4:3:2:1 between the VM states,
-- one phase each, measured with os.clock:
--   interp_phase    40%  Interpreted  (jit.off'd function with a Lua loop)
--   compiled_phase  30%  Compiled     (hot loop, a JIT trace)
--   gc_phase        20%  Garbage Collector (full collections of a live heap)
--   c_phase         10%  C code       (a loop inside a lua_CFunction)
-- The C phase calls chost.spin(n) when run by tests/hosts/lhost (a
-- lua_CFunction looping in C); under plain luajit it falls back to
-- table.sort on numbers without a comparator: library C code (BC_FUNCC,
-- vmstate C) that the JIT never compiles and that never calls back into Lua.
-- No phase reads the clock: os.clock is a system call, C code of its own,
-- and read after every short sort it took 6% of the C phase, so "C code is
-- table.sort" was false.  Each phase runs a number of units of its work
-- planned from its cost so far, and the main loop reads the clock between
-- phases (five reads a round, under 0.05% of the run); what a phase got
-- above or below its share in one round is made up in the next, so over
-- the run the split is exact.
-- jit.p keys: -jp=v: Interpreted, Compiled, Garbage Collector, C code;
-- -jp=f: interp_phase, compiled_phase, gc_phase, c_phase (same shares).
-- Runs until killed, or for SECONDS of CPU time.

local budget = dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "") .. "budget.lua")
local clock = os.clock

local function interp_phase(n, x)
	for i = 1, n * 1000 do x = (x * 1664525 + 1013904223) % 4294967296 end
	return x
end
jit.off(interp_phase) -- never compiled: its loop stays in the interpreter

local function compiled_phase(n, x)
	for i = 1, n * 1000 do x = (x * 1664525 + 1013904223) % 4294967296 end
	return x
end

local live = {} -- ~0.3 ms per full collection
for i = 1, 20000 do live[i] = { i } end

local function gc_phase(n)
	for _ = 1, n do collectgarbage("collect") end
	return #live
end

local spin = rawget(_G, "chost") and chost.spin
local sorted = {}
for i = 1, 1000 do sorted[i] = i end

local function c_phase(n)
	if spin then
		for _ = 1, n do spin(200000) end
	else
		for _ = 1, n do table.sort(sorted) end
	end
	return sorted[1]
end

local ROUND = 0.1 -- CPU seconds per round of the four phases
-- The phases (workloads/budget.lua): share, first guess of a unit's cost.
local P = {
	interp = budget.phase(0.4, 1e-5),
	compiled = budget.phase(0.3, 1e-6),
	gc = budget.phase(0.2, 3e-4),
	c = budget.phase(0.1, 3e-5),
}

local secs = tonumber(arg and arg[1])
-- A second argument "truth" ("-" for SECONDS: until killed) writes a
-- line every round, "round interp UNITS SECS compiled ... gc ... c ...",
-- each phase's last run: the truth measured in-process where the planned
-- shares are not (emulation, where the JIT compiler's fixed work is a
-- large part of a short run: tests/arm64/guest.sh).
local timed = arg and arg[2] == "truth"
local x, t0, t1 = 1, clock()
if timed then
	-- Each phase in its one VM state: the JIT's tries at gc_phase's and
	-- c_phase's loops (they abort at collectgarbage and table.sort, not
	-- compiled) are JIT Compiler time that emulation makes long.
	jit.off(gc_phase)
	jit.off(c_phase)
	-- The first guesses of a unit's cost are this machine's; 20 times
	-- slower, the first round would run for seconds and the next ones
	-- would pay its debt for many more (c_phase: 15 s), away from the
	-- split.  So one unit of each phase is timed first, twice (the
	-- first lets the JIT compile compiled_phase's loop).
	for _ = 1, 2 do
		x = interp_phase(1, x); t1 = clock(); P.interp.per = t1 - t0
		x = compiled_phase(1, x); t0 = clock(); P.compiled.per = t0 - t1
		gc_phase(1); t1 = clock(); P.gc.per = t1 - t0
		c_phase(1); t0 = clock(); P.c.per = t0 - t1
	end
end
local last = { 0, 0, 0, 0, 0, 0, 0, 0 } -- units and seconds of each phase's last run
while not secs or t0 < secs do
	local n, want = budget.plan(P.interp, ROUND)
	x = interp_phase(n, x)
	t1 = clock(); budget.settle(P.interp, want, n, t1 - t0); last[1], last[2] = n, t1 - t0
	n, want = budget.plan(P.compiled, ROUND)
	x = compiled_phase(n, x)
	t0 = clock(); budget.settle(P.compiled, want, n, t0 - t1); last[3], last[4] = n, t0 - t1
	n, want = budget.plan(P.gc, ROUND)
	gc_phase(n)
	t1 = clock(); budget.settle(P.gc, want, n, t1 - t0); last[5], last[6] = n, t1 - t0
	n, want = budget.plan(P.c, ROUND)
	if timed then
		-- Written inside the C phase's time (the write is C code, as a
		-- profiler sees it), with the C phase's last run.
		io.stdout:write(string.format("round interp %d %.6f compiled %d %.6f gc %d %.6f c %d %.6f\n",
			unpack(last)))
		io.stdout:flush()
	end
	c_phase(n)
	t0 = clock(); budget.settle(P.c, want, n, t0 - t1); last[7], last[8] = n, t0 - t1
end
return x
-- SPDX-License-Identifier: MIT
