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
local x, t0, t1 = 1, clock()
while not secs or t0 < secs do
	local n, want = budget.plan(P.interp, ROUND)
	x = interp_phase(n, x)
	t1 = clock(); budget.settle(P.interp, want, n, t1 - t0)
	n, want = budget.plan(P.compiled, ROUND)
	x = compiled_phase(n, x)
	t0 = clock(); budget.settle(P.compiled, want, n, t0 - t1)
	n, want = budget.plan(P.gc, ROUND)
	gc_phase(n)
	t1 = clock(); budget.settle(P.gc, want, n, t1 - t0)
	n, want = budget.plan(P.c, ROUND)
	c_phase(n)
	t0 = clock(); budget.settle(P.c, want, n, t0 - t1)
end
return x
