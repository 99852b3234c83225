-- vmstates.lua [SECONDS]: CPU time split 4:3:2:1 between the VM states,
-- one phase each, measured with os.clock budgets:
--   interp_phase    40%  Interpreted  (jit.off'd function with a Lua loop)
--   compiled_phase  30%  Compiled     (hot loop, a JIT trace)
--   gc_phase        20%  Garbage Collector (full collections of a live heap)
--   c_phase         10%  C code       (a loop inside a lua_CFunction)
-- The C phase calls chost.spin(n) when run by tests/hosts/lhost (a
-- lua_CFunction looping in C); under plain luajit it falls back to
-- table.sort on numbers without a comparator: library C code (BC_FUNCC,
-- vmstate C) that the JIT never compiles and that never calls back into Lua.
-- jit.p keys: -jp=v: Interpreted, Compiled, Garbage Collector, C code;
-- -jp=f: interp_phase, compiled_phase, gc_phase, c_phase (same shares).
-- Runs until killed, or for SECONDS of CPU time.

local clock = os.clock

local function interp_phase(stop, x)
	repeat
		for i = 1, 20000 do x = (x * 1664525 + 1013904223) % 4294967296 end
	until clock() >= stop
	return x
end
jit.off(interp_phase) -- never compiled: its loop stays in the interpreter

local function compiled_phase(stop, x)
	repeat
		for i = 1, 100000 do x = (x * 1664525 + 1013904223) % 4294967296 end
	until clock() >= stop
	return x
end

local live = {} -- ~0.3 ms per full collection
for i = 1, 20000 do live[i] = { i } end

local function gc_phase(stop)
	repeat collectgarbage("collect") until clock() >= stop
	return #live
end

local spin = rawget(_G, "chost") and chost.spin
local sorted = {}
for i = 1, 1000 do sorted[i] = i end

local function c_phase(stop)
	if spin then
		repeat spin(200000) until clock() >= stop
	else
		repeat table.sort(sorted) until clock() >= stop
	end
	return sorted[1]
end

local secs = tonumber(arg and arg[1])
local ROUND = 0.1 -- CPU seconds per round of the four phases
local x = 1
while not secs or clock() < secs do
	x = interp_phase(clock() + 0.4 * ROUND, x)
	x = compiled_phase(clock() + 0.3 * ROUND, x)
	gc_phase(clock() + 0.2 * ROUND)
	c_phase(clock() + 0.1 * ROUND)
end
return x
