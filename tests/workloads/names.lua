-- names.lua [SECONDS]: C and fast functions called through local aliases,
-- so that a name taken from the call site ("alias_gsub") can be told from
-- the function's own ("string.gsub").  For tests/t_names.sh:
--   string.gsub with a Lua callback, table.sort with a Lua comparator,
--   table.concat, coroutine.resume, string.upper called as a tail call,
--   require (a lua_CFunction, not a fast function), and chost.spin (a
--   lua_CFunction registered by the host) when run by tests/hosts/lhost,
--   ffi.string (its fast-function id comes after jit.util's, which builds
--   without the JIT lack: a name from the wrong table shows there).
-- Rounds of random length (see README.md): each phase runs until a random
-- share of its CPU budget is used.  Runs until killed, or SECONDS of CPU.

local clock = os.clock
local alias_gsub, alias_sort, alias_concat = string.gsub, table.sort, table.concat
local alias_resume, alias_create, alias_upper = coroutine.resume, coroutine.create, string.upper
local alias_require = require
local alias_spin = rawget(_G, "chost") and chost.spin
local has_ffi, ffi = pcall(require, "ffi")
local alias_ffistring = has_ffi and ffi.string
local cbuf = has_ffi and ffi.new("char[?]", 4096, 65)

local text = string.rep("alpha beta gamma delta ", 200)
local arr = {}
for i = 1, 1500 do arr[i] = (i * 7919) % 1511 end
local parts = {}
for i = 1, 400 do parts[i] = tostring(i) end

local function cb(w) return #w > 4 and w or nil end
local function less(a, b) return a < b end

local function gsub_phase(stop)
	repeat alias_gsub(text, "%a+", cb) until clock() >= stop
end

local function sort_phase(stop)
	repeat
		for i = 1, #arr do arr[i] = (arr[i] * 31 + 7) % 1511 end
		alias_sort(arr, less)
	until clock() >= stop
end

local function concat_phase(stop)
	repeat alias_concat(parts, ",") until clock() >= stop
end

local function shout(s) return alias_upper(s) end

local function upper_phase(stop)
	repeat shout(text) until clock() >= stop
end

-- Yields at once: the time goes to switching, inside coroutine.resume
-- (and coroutine.yield on the coroutine's own stack).
local co_body = function()
	while true do coroutine.yield() end
end

local function resume_phase(stop)
	local co = alias_create(co_body)
	repeat
		for _ = 1, 100 do alias_resume(co) end
	until clock() >= stop
end

local function require_phase(stop)
	repeat
		for _ = 1, 200 do alias_require("string") end
	until clock() >= stop
end

local function ffi_phase(stop)
	repeat
		for _ = 1, 100 do alias_ffistring(cbuf, 4096) end
	until clock() >= stop
end

local function spin_phase(stop)
	repeat alias_spin(20000) until clock() >= stop
end

-- { phase, weight }: the names tests/t_names.sh expects in every format
-- get the most time; the others are there for the no-alias rule.
local phases = {
	{ gsub_phase, 1 }, { sort_phase, 1 }, { require_phase, 1 },
	{ concat_phase, 0.3 }, { upper_phase, 0.3 }, { resume_phase, 0.3 },
}
if alias_spin then phases[#phases + 1] = { spin_phase, 1 } end
if has_ffi then phases[#phases + 1] = { ffi_phase, 1 } end

local secs = tonumber(arg and arg[1])
local ROUND = 0.02
math.randomseed(os.time())
while not secs or clock() < secs do
	for _, p in ipairs(phases) do
		p[1](clock() + ROUND * p[2] * (0.5 + math.random()))
	end
end
-- SPDX-License-Identifier: MIT
