-- otlp_mix.lua [SECONDS]: a little of everything an exporter must carry,
-- for tests/t_otlp.sh: Lua frames with lines (burn, build), a C function
-- with a file mapping (string.rep, from the LuaJIT executable), time off
-- the CPU (nap: FFI usleep), and a heap that keeps growing (kept).
-- Runs until killed, or for SECONDS of wall-clock time.
local ffi = require("ffi")
ffi.cdef[[int usleep(unsigned usec);]]
local limit = tonumber(arg[1]) or 1e9
local t0 = os.time()

local function burn(n)
	local x = 0
	for i = 1, n do
		x = (x + i * 7) % 1000003
	end
	return x
end

local kept = {}
local function build(n)
	local t = {}
	for i = 1, n do
		t[i] = { i, tostring(i) }
	end
	kept[#kept % 64 + 1] = t
	return #string.rep("ab", 100000)
end

local function nap()
	ffi.C.usleep(5000)
end

while os.time() - t0 < limit do
	burn(200000)
	build(2000)
	nap()
end
-- SPDX-License-Identifier: MIT
