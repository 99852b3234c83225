-- alias.lua HZ [SECONDS]: a program in phase with the sampler, for
-- tests/t_aliasing.sh.  Its round lasts exactly one sampling period (1/HZ
-- s) on CLOCK_MONOTONIC, the clock the kernel's cpu-clock timer counts
-- in, and splits 3:2:1 between seg_a, seg_b and seg_c.  The running
-- function is a function of the phase of the wall clock in the round:
-- after a preemption the program resumes at the segment the clock says,
-- so the split is exact whatever the load.  A sampler with a fixed period
-- sees each CPU's timer at one fixed phase of the round, so at most one
-- segment per CPU: far from 50/33/17.
-- Runs until killed, or for SECONDS of wall time.
local ffi = require("ffi")
ffi.cdef[[
struct alias_ts { long sec; long nsec; };
int clock_gettime(int clk, struct alias_ts *ts);
]]
local C = ffi.C
local CLOCK_MONOTONIC = 1
local ts = ffi.new("struct alias_ts")

local function now_ns()
	C.clock_gettime(CLOCK_MONOTONIC, ts)
	return tonumber(ts.sec) * 1e9 + tonumber(ts.nsec)
end

local hz = assert(tonumber(arg and arg[1]), "usage: alias.lua HZ [SECONDS]")
local secs = tonumber(arg[2])
-- The kernel's period in whole nanoseconds, as the profiler computes it.
local R = math.floor(1e9 / hz)
local A, B = R * 3 / 6, R * 5 / 6
local t0 = now_ns()

-- Each segment spins while the clock's phase in the round is its own.
local function seg_a()
	local ph
	repeat ph = (now_ns() - t0) % R until ph >= A
end

local function seg_b()
	local ph
	repeat ph = (now_ns() - t0) % R until ph < A or ph >= B
end

local function seg_c()
	local ph
	repeat ph = (now_ns() - t0) % R until ph < B
end

local stop = secs and t0 + secs * 1e9
while not stop or now_ns() < stop do
	local ph = (now_ns() - t0) % R
	if ph < A then seg_a() elseif ph < B then seg_b() else seg_c() end
end
-- SPDX-License-Identifier: MIT
