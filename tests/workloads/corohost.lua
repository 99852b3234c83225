-- Request handler for tests/hosts/corohost (coroutines resumed from C, like
-- nginx's Lua module), with coroutines resumed from Lua, FFI calls and FFI
-- callbacks (C -> Lua) in the hot path.  Split by CPU-time budgets per
-- phase (os.clock), so it holds with the JIT on or off:
--   lua_work    40   Lua, in the request coroutine (resumed from C)
--   inner_work  20   Lua, in a coroutine resumed from Lua (coroutine.wrap)
--                    inside the request coroutine
--   cb_work     20   Lua, an FFI callback called from C (corohost_each)
--   burn        20   C, corohost_burn called through the FFI by ffi_phase
-- Each request runs ROUNDS rounds and yields to C after each one.  Needs the
-- corohost executable (ffi.C.corohost_*); `corohost SCRIPT` runs it.
local ffi = require("ffi")
ffi.cdef[[
double corohost_burn(int n);
void corohost_each(int n, void (*cb)(int));
]]
local C = ffi.C
local clock = os.clock

local UNIT = 0.002	-- seconds of CPU per weight unit and round
local ROUNDS = 3

local function lua_work(n, x)
	for _ = 1, n do x = (x * 1664525 + 1013904223) % 4294967296 end
	return x
end

local function inner_work(n, x)
	for _ = 1, n do x = (x * 1664525 + 1013904223) % 4294967296 end
	return x
end

local sink = 1
local function cb_work(n)
	local x = sink
	for _ = 1, n do x = (x * 1664525 + 1013904223) % 4294967296 end
	sink = x
end
local cb = ffi.cast("void (*)(int)", function() cb_work(4000) end)

local function lua_phase(budget)
	local t, x = clock() + budget, 1
	repeat x = lua_work(20000, x) until clock() >= t
	return x
end

local function inner_phase(budget)
	local gen = coroutine.wrap(function()
		local x = 1
		while true do x = inner_work(20000, x); coroutine.yield(x) end
	end)
	local t = clock() + budget
	repeat gen() until clock() >= t
end

local function cb_phase(budget)
	local t = clock() + budget
	repeat C.corohost_each(5, cb) until clock() >= t
end

local function ffi_phase(budget)
	local t, x = clock() + budget, 0
	repeat x = x + C.corohost_burn(50000) until clock() >= t
	return x
end

return function(no)
	for _ = 1, ROUNDS do
		lua_phase(4 * UNIT)
		inner_phase(2 * UNIT)
		cb_phase(2 * UNIT)
		ffi_phase(2 * UNIT)
		coroutine.yield()
	end
	return no
end
-- SPDX-License-Identifier: MIT
