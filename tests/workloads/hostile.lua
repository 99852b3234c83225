-- hostile.lua MODE [SECONDS]: what a hostile unprivileged user can make a
-- LuaJIT process hold, for tests/t_hostile.sh.  Not a profile workload.
--
-- names: chunk, function, upvalue and local names and comm made of terminal
--   escapes, forged report lines and the formats' separators; the hot loop
--   runs in the hostile function, which holds a table through a hostile
--   upvalue and a hostile field (for --heap).
-- top: a comm that starts with a CR, the hot loop in a chunk named in
--   UTF-8 (t_hostile3's top checks).
-- heap: tables whose array part and hash part are pointed (through FFI) at
--   one untouched 256 MiB mapping, and strings whose headers claim 256 MiB;
--   then it idles with the GC stopped (the GC would walk those claims
--   itself).  Prints "ready" once set up.
local mode, secs = arg[1], tonumber(arg[2])

-- The forged text: a title change, an erased line, a fake report line.
local FORGED = "\27]0;pwned\7\27[2K\r 99%  FORGED\n 1%  other"

local function set_comm(s)
	local f = io.open("/proc/self/comm", "w")
	if f then f:write(s) f:close() end
end

-- string.dump keeps upvalue and local names as NUL-terminated strings:
-- the same number of other bytes (no NUL) replaces them.
local function patch(dump, from, to)
	assert(#from == #to)
	local at = assert(dump:find(from, 1, true), from)
	return dump:sub(1, at - 1) .. to .. dump:sub(at + #from)
end

if mode == "names" then
	set_comm("a;b \27[31mX\n")
	local src = [[
local uvAAAAAAAAAAAA = { kept = string.rep("u", 4096) }
return function(n, x)
	-- Only the upvalue holds the table: every path to it names the upvalue.
	local lcAAAAAAAAAAAA = #uvAAAAAAAAAAAA.kept
	for i = 1, n do x = (x * 1664525 + 1013904223) % 4294967296 end
	return x + lcAAAAAAAAAAAA * 0
end
]]
	local chunk = "=x/" .. FORGED
	local d = string.dump(assert(load(src, chunk)))
	-- 14 bytes each: separators, a newline and an escape.
	d = patch(d, "uvAAAAAAAAAAAA", "u;v\n\27[2K;ww 1%")
	d = patch(d, "lcAAAAAAAAAAAA", "l;c\n\27[2K;ww 1%")
	local make = assert(load(d, chunk))
	local t = {}
	-- A constant key at the call site names the function (jit.p's f).
	t["f;\27]0;pwned\7\27[2K\r 99%  FORGED\n 1%  other"] = make()
	_G["g;\27[31m" .. FORGED] = t
	-- Bidi and zero-width characters (U+202E, U+200B, U+2066) in a chunk,
	-- a function and a local's value: they would reorder or hide what root
	-- reads.  A coroutine suspended in it is for dump.
	local rev = assert(load([[
local v = ...
local held = v .. "\27[2J\r\nFORGED"
coroutine.yield(held)
return #held
]], "=\226\128\174gnp.lua\226\128\139"))
	local co = coroutine.create(rev)
	coroutine.resume(co, "\226\129\166hid")
	t["\226\128\174evil\226\128\139"] = function(y) for _ = 1, 30000 do y = (y * 3 + 1) % 65536 end return y end
	local x, t0 = 1, os.clock()
	while not secs or os.clock() - t0 < secs do
		x = t["f;\27]0;pwned\7\27[2K\r 99%  FORGED\n 1%  other"](100000, x)
		x = x + t["\226\128\174evil\226\128\139"](x % 65536)
	end
	return co
end

if mode == "top" then
	-- A CR first: drawn raw, it returns to the PID column of top -a and
	-- writes a PID of its choosing there.  The hot function's chunk is
	-- UTF-8 (top shows it as such in a UTF-8 locale, escaped in others).
	set_comm("\r99999 hidden")
	local f = assert(load([[
local n, x = ...
for i = 1, n do x = (x * 1664525 + 1013904223) % 4294967296 end
return x
]], "=\195\169t\195\169-\228\184\173.lua"))
	local x, t0 = 1, os.clock()
	while not secs or os.clock() - t0 < secs do x = f(100000, x) end
	return
end

assert(mode == "heap", "mode: names, top or heap")
local ffi = require("ffi")
ffi.cdef [[
void *mmap(void *addr, size_t len, int prot, int flags, int fd, long off);
]]
local PROT_READ, MAP_PRIVATE, MAP_ANONYMOUS, MAP_NORESERVE, MAP_32BIT = 1, 2, 0x20, 0x4000, 0x40
local HUGE = 256 * 1024 * 1024

local function addr(o)
	return tonumber(string.format("%p", o):match("0x(%x+)"), 16)
end
local function u8p(a) return ffi.cast("uint8_t *", ffi.cast("uintptr_t", a)) end
local function put32(a, v) ffi.cast("uint32_t *", u8p(a))[0] = v end
local function get32(a) return ffi.cast("uint32_t *", u8p(a))[0] end

-- GC64 strings keep their length at 20 and bytes at 24; the others at 16
-- and 20 (user/luajit/layout.c): tell them apart on a known string.
local probe = "probe-string-8"
local s = addr(probe)
local gc64 = get32(s + 20) == #probe and ffi.string(u8p(s + 24), #probe) == probe
local L = gc64 and { array = 16, node = 40, asize = 48, hmask = 52, str_len = 20, ref = 8 }
	or { array = 8, node = 20, asize = 24, hmask = 28, str_len = 16, ref = 4 }

collectgarbage("stop")
local flags = MAP_PRIVATE + MAP_ANONYMOUS + MAP_NORESERVE + (gc64 and 0 or MAP_32BIT)
local map = ffi.C.mmap(nil, HUGE, PROT_READ, flags, -1, 0)
local base = tonumber(ffi.cast("uintptr_t", map))
assert(base ~= 0 and base ~= 2 ^ 64 - 1, "mmap failed")

local function put_ref(a, v)
	if L.ref == 8 then
		ffi.cast("uint64_t *", u8p(a))[0] = v
	else
		put32(a, v)
	end
end

local keep = {}
for i = 1, 8 do
	local t = {}
	local a = addr(t)
	put_ref(a + L.array, base)
	put32(a + L.asize, HUGE / 8)
	keep[#keep + 1] = t
end
-- Hash parts: hmask + 1 nodes of 24 (GC64) or 24 bytes, over the mapping.
for i = 1, 2 do
	local t = {}
	local a = addr(t)
	put_ref(a + L.node, base)
	put32(a + L.hmask, 2 ^ 23 - 1)
	keep[#keep + 1] = t
end
for i = 1, 8 do
	local str = string.rep(string.char(64 + i), 64)
	put32(addr(str) + L.str_len, HUGE)
	keep[#keep + 1] = str
end
_G.hostile_keep = keep
io.write("ready\n")
io.flush()
local t0 = os.time()
while not secs or os.time() - t0 < secs do
	-- Idle, but a live Lua process: a sleep that LuaJIT does not see.
	os.execute("sleep 0.2")
end
-- SPDX-License-Identifier: MIT
