-- FFI calls into libm from a Lua loop (t_native.sh): cbrt() is most of
-- the work, called from the Lua function spin_cbrt, JIT on or off (-joff).
-- cbrt, not sin: glibc's sin is an IFUNC whose .dynsym symbol covers only
-- its resolver; cbrt is one plain function.  Usage: native_libm.lua
-- SECONDS [coro]; with coro, spin_cbrt runs in a coroutine resumed from
-- Lua (coroutine.wrap), whose C stack is its resumer's.
local ffi = require("ffi")
ffi.cdef[[ double cbrt(double); ]]
local C = ffi.C

local function spin_cbrt(n)
	local s = 0
	for i = 1, n do s = s + C.cbrt(i * 1.37) end
	return s
end

local coro = arg and arg[2] == "coro" and coroutine.wrap(function(n)
	while true do n = coroutine.yield(spin_cbrt(n)) end
end)
local deadline = os.time() + (tonumber(arg and arg[1]) or 10)
local acc = 0
while os.time() < deadline do
	if coro then
		acc = acc + coro(100000)
	else
		acc = acc + spin_cbrt(100000)
	end
end
io.stdout:write(acc > 0 and "" or "?")
-- SPDX-License-Identifier: MIT
