-- truncate.lua LIB SECONDS: a hostile user's own copy of a shared object
-- (libm), loaded with ffi.load, truncated to nothing and written back
-- under root's --native, for tests/t_hostile3.sh.  Not a profile workload.
-- Every 50 ms: cbrt in the copy, then the file is emptied for 50 ms of pure
-- Lua (the target never runs the copy's code while it is empty: it would
-- die of SIGBUS itself), then its bytes are written back.  Prints "ready".
local ffi = require("ffi")
local path, secs = arg[1], tonumber(arg[2])
local f = assert(io.open(path, "rb"))
local bytes = f:read("*a")
f:close()
ffi.cdef("double cbrt(double);")
local lib = ffi.load(path)
local function put(s)
	local out = assert(io.open(path, "wb"))	-- O_TRUNC
	out:write(s)
	out:close()
end
local x, t0 = 0, os.clock()
io.stdout:write("ready\n")
io.stdout:flush()
while os.clock() - t0 < secs do
	local t1 = os.clock()
	while os.clock() - t1 < 0.05 do x = x + lib.cbrt(x % 1000) end
	put("")
	t1 = os.clock()
	while os.clock() - t1 < 0.05 do x = (x * 3 + 1) % 65536 end
	put(bytes)
end
-- SPDX-License-Identifier: MIT
