-- callbacks.lua [SECONDS]: Lua code called back from C functions, fast
-- functions and the VM, each under a known caller, in rounds of random
-- length.  Every sample's stack must reach down to the main chunk:
--   sort_cb   table.sort with a Lua comparator
--   gsub_cb   string.gsub with a function replacement
--   gmatch    a for loop over string.gmatch (C iterator)
--   xpcall_h  an xpcall error handler doing work
--   meta      __index, __add, __lt, __concat, __call, __eq metamethods
--             (continuation frames, FRAME_CONT)
--   gc        __gc finalizers doing work (run by the GC, under any allocation)
--   tostr     tostring with __tostring
-- Runs until killed, or for SECONDS of CPU time.

local clock = os.clock

local function spin(n, x)
	for i = 1, n do x = (x * 1664525 + 1013904223) % 4294967296 end
	return x
end

local function sort_cb(t_end)
	local t = {}
	repeat
		for i = 1, 200 do t[i] = (i * 7919) % 211 end
		table.sort(t, function(a, b) spin(3, a) return a < b end)
	until clock() >= t_end
end

local function gsub_cb(t_end)
	local s = string.rep("abc def ghi ", 40)
	repeat
		s = s:gsub("%a+", function(w) spin(20, #w) return w end)
	until clock() >= t_end
end

local function gmatch_loop(t_end)
	local s = string.rep("k1=v1;k2=v2;", 40)
	local x = 0
	repeat
		for k, v in s:gmatch("(%w+)=(%w+)") do x = spin(10, x + #k + #v) end
	until clock() >= t_end
end

local function handler(e)
	return spin(3000, #tostring(e))
end

local function xpcall_h(t_end)
	repeat
		xpcall(function() error("boom") end, handler)
	until clock() >= t_end
end

local mt = {}
mt.__index = function(t, k) return spin(30, k) end
mt.__add = function(a, b) return spin(30, 1) end
mt.__lt = function(a, b) spin(30, 1) return true end
mt.__concat = function(a, b) return spin(30, 1) end
mt.__call = function(self, x) return spin(30, x) end
mt.__eq = function(a, b) spin(30, 1) return true end

local function meta(t_end)
	local a, b = setmetatable({}, mt), setmetatable({}, mt)
	local x = 0
	repeat
		for i = 1, 20 do
			x = x + a[i] + (a + b)
			if a < b then x = x + 1 end
			x = x + (a .. b) + a(i)
			if a == b then x = x + 1 end
		end
	until clock() >= t_end
	return x
end

-- Lua 5.1 runs __gc for userdata only: proxies sharing one metatable.
local gc_proto = newproxy(true)
getmetatable(gc_proto).__gc = function(o) spin(200, 1) end
local function gc(t_end)
	repeat
		for i = 1, 50 do newproxy(gc_proto) end
		collectgarbage("step", 10)
	until clock() >= t_end
end

local smt = { __tostring = function(o) spin(50, 1) return "o" end }
local function tostr(t_end)
	local o = setmetatable({}, smt)
	repeat
		for i = 1, 20 do tostring(o) end
	until clock() >= t_end
end

local phases = { sort_cb, gsub_cb, gmatch_loop, xpcall_h, meta, gc, tostr }
local secs = tonumber(arg and arg[1])
math.randomseed(os.time())
while not secs or clock() < secs do
	for _, f in ipairs(phases) do
		f(clock() + 0.002 + 0.004 * math.random())
	end
end
-- SPDX-License-Identifier: MIT
