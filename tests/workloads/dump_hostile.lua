-- dump_hostile.lua MODE COUNT: what a hostile user makes a LuaJIT process
-- hold against `luabpfprof dump`, for tests/t_hostile3.sh.  Not a profile
-- workload.  Prints "ready" once set up, then idles with the GC stopped.
--
-- deep: COUNT coroutines, each suspended 200 calls deep in functions of 60
--   chunks whose names are 60 KB long (8 MB of target in all for 400).
-- loop: COUNT coroutines, then the GC object list made to loop: the 30th
--   newest links back to the 10th (through FFI), so the 70 older ones
--   are on no path a walk of the list takes.
local mode, count = arg[1], tonumber(arg[2])
collectgarbage("stop")
local cos = {}

if mode == "deep" then
	local fns = {}
	for c = 1, 60 do
		local name = "=" .. string.rep(string.char(97 + c % 26), 60 * 1024 - 16) .. c
		fns[c] = assert(load([[
local fns, c, d = ...
if d == 0 then return coroutine.yield(d) end
return fns[c % #fns + 1](fns, c + 1, d - 1) + 1
]], name))
	end
	for i = 1, count do
		cos[i] = coroutine.create(fns[1])
		coroutine.resume(cos[i], fns, i, 200)
	end
else
	assert(mode == "loop", "mode: deep or loop")
	local ffi = require("ffi")
	for i = 1, count do
		cos[i] = coroutine.create(function() coroutine.yield() end)
		coroutine.resume(cos[i])
	end
	-- nextgc is the first field of every GC object: 8 bytes on GC64, 4
	-- otherwise; new objects go to the head of the root list.
	local function addr(o) return tonumber(string.format("%p", o):match("0x(%x+)"), 16) end
	local gc64 = ffi.abi("64bit") and addr(cos[1]) > 0xffffffff
	local at = ffi.cast(gc64 and "uint64_t *" or "uint32_t *", ffi.cast("uintptr_t", addr(cos[count - 29])))
	at[0] = addr(cos[count - 9])
end
io.stdout:write("ready\n")
io.stdout:flush()
while true do os.execute("sleep 1") end
-- SPDX-License-Identifier: MIT
