-- A game loop with one slow frame in every N: frame() burns FRAME_MS of
-- this thread's CPU time, and every Nth frame spike() burns SPIKE_MS.  The
-- thread names itself NAME (prctl), writes "pid PID" to OUT, waits
-- WAIT_MS for a profiler to attach, then appends "spike START END" per
-- spike (CLOCK_MONOTONIC nanoseconds, taken in-process around the call)
-- and "done" at the end.  CPU time, not wall time, keeps the number of
-- samples in a spike the same on a loaded machine.  tests/t_timeline.sh.
--   luajit spike.lua NAME OUT [N [FRAMES [FRAME_MS [SPIKE_MS [WAIT_MS]]]]]
local ffi = require("ffi")
ffi.cdef[[
typedef struct { long tv_sec; long tv_nsec; } lbp_spike_timespec;
int clock_gettime(int clk, lbp_spike_timespec *ts);
int prctl(int option, const char *name, unsigned long a3, unsigned long a4, unsigned long a5);
int getpid(void);
int poll(void *fds, unsigned long nfds, int timeout);
]]
local CLOCK_MONOTONIC, CLOCK_THREAD_CPUTIME_ID, PR_SET_NAME = 1, 3, 15

local name, out = arg[1], arg[2]
local every = tonumber(arg[3]) or 8
local frames = tonumber(arg[4]) or 48
local frame_ns = (tonumber(arg[5]) or 10) * 1e6
local spike_ns = (tonumber(arg[6]) or 150) * 1e6
local wait_ms = tonumber(arg[7]) or 1500

local ts = ffi.new("lbp_spike_timespec")
local function now(clk)
	ffi.C.clock_gettime(clk, ts)
	return tonumber(ts.tv_sec) * 1e9 + tonumber(ts.tv_nsec)
end

-- Each burns in its own loop, so its trace is rooted in it.
local function frame()
	local stop, x = now(CLOCK_THREAD_CPUTIME_ID) + frame_ns, 0
	repeat
		for i = 1, 2000 do x = x + i % 7 end
	until now(CLOCK_THREAD_CPUTIME_ID) >= stop
	return x
end

local function spike()
	local stop, x = now(CLOCK_THREAD_CPUTIME_ID) + spike_ns, 0
	repeat
		for i = 1, 2000 do x = x + i % 5 end
	until now(CLOCK_THREAD_CPUTIME_ID) >= stop
	return x
end

ffi.C.prctl(PR_SET_NAME, name, 0, 0, 0)
local f = assert(io.open(out, "w"))
f:write(("pid %d\n"):format(ffi.C.getpid()))
f:flush()
ffi.C.poll(nil, 0, wait_ms)
for n = 1, frames do
	if n % every == 0 then
		local t0 = now(CLOCK_MONOTONIC)
		spike()
		f:write(("spike %.0f %.0f\n"):format(t0, now(CLOCK_MONOTONIC)))
		f:flush()
	else
		frame()
	end
end
f:write("done\n")
f:close()
-- SPDX-License-Identifier: MIT
