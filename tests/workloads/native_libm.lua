-- FFI calls into libm from a Lua loop (t_native.sh): cbrt() is most of
-- the work, called from the Lua function spin_cbrt, JIT on or off (-joff).
-- cbrt, not sin: glibc's sin is an IFUNC whose .dynsym symbol covers only
-- its resolver; cbrt is one plain function.
local ffi = require("ffi")
ffi.cdef[[ double cbrt(double); ]]
local C = ffi.C

local function spin_cbrt(n)
	local s = 0
	for i = 1, n do s = s + C.cbrt(i * 1.37) end
	return s
end

local deadline = os.time() + (tonumber(arg and arg[1]) or 10)
local acc = 0
while os.time() < deadline do
	acc = acc + spin_cbrt(100000)
end
io.stdout:write(acc > 0 and "" or "?")
