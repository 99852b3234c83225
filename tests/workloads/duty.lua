-- duty.lua BUSY_MS IDLE_MS WALL_SECONDS [GO_FILE|- [exit]]: a light, paced
-- load for long runs (continuous mode).  Waits (asleep) until GO_FILE
-- exists ("-": no wait), then for WALL_SECONDS of wall time alternates
-- BUSY_MS of CPU in `burn` with IDLE_MS asleep, then sleeps until killed,
-- or exits with "exit" (short-lived processes).  Long bursts keep the sample
-- count close to CPU time x Hz for every sampler watching, so two
-- profilers attached at once count the same samples within a fraction of
-- a percent.  F key: duty.lua:burn (all of the CPU time).
local ffi = require("ffi")
ffi.cdef[[
typedef struct { long tv_sec, tv_nsec; } duty_timespec;
int clock_gettime(int clk, duty_timespec *ts);
int usleep(unsigned int usec);
]]
local C = ffi.C
local ts = ffi.new("duty_timespec")

local function now()
	C.clock_gettime(1, ts) -- CLOCK_MONOTONIC
	return tonumber(ts.tv_sec) + tonumber(ts.tv_nsec) / 1e9
end

local function exists(path)
	local f = io.open(path, "r")
	if f then f:close() end
	return f ~= nil
end

local function burn(until_t, x)
	while now() < until_t do
		for i = 1, 20000 do x = (x * 1664525 + 1013904223) % 4294967296 end
	end
	return x
end

local busy, idle = tonumber(arg[1]) / 1000, tonumber(arg[2])
local wall, go = tonumber(arg[3]), arg[4] ~= "-" and arg[4] or nil
while go and not exists(go) do C.usleep(20000) end
local stop, x = now() + wall, 1
while now() < stop do
	x = burn(math.min(now() + busy, stop), x)
	if now() < stop then C.usleep(idle * 1000) end
end
if arg[5] == "exit" then return x end
while true do C.usleep(1000000) end
-- SPDX-License-Identifier: MIT
