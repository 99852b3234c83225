-- top_wait.lua [SECONDS]: a thread that mostly waits, in two known Lua
-- functions: each round wait_long sleeps 100 ms and wait_short 5 ms (FFI
-- usleep: no Lua frame above them while they sleep), and burn spins
-- ~0.5 ms.  Blocked time is then 20:1 between wait_long and wait_short;
-- on a loaded machine each wake-up also waits for a CPU (off-CPU time
-- too, charged where the thread was), which evens the split out, but
-- wait_long stays first as long as that wait is under 100 ms.
-- tests/t_top.sh: `luabpfprof top -e off-cpu` lists wait_long first.
-- Runs until killed, or for SECONDS of wall time.
--
-- Interpreted (jit.off): compiled, the main loop's trace inlines both
-- waits, and an off-CPU walk from a C call inside a trace finds only the
-- main chunk (the one-shot report too: -e off-cpu --jp F says
-- top_wait.lua:0 79%, wait_long 21%); this workload tests top, not that.
jit.off()
local ffi = require("ffi")
ffi.cdef[[int usleep(unsigned usec);]]

local function wait_long() ffi.C.usleep(100000) end
local function wait_short() ffi.C.usleep(5000) end
local x = 0
local function burn()
	local stop = os.clock() + 0.0005
	repeat
		for i = 1, 1000 do x = (x * 31 + i) % 1000003 end
	until os.clock() >= stop
end

local secs = tonumber(arg and arg[1])
local start = os.time()
while not secs or os.time() - start < secs do
	wait_long()
	wait_short()
	burn()
end
return x
-- SPDX-License-Identifier: MIT
