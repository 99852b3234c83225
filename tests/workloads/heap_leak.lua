-- A leak at a known rate, for tests/t_heap.sh: RATE records a second are
-- appended to _G.sessions, each a table with a unique 1 KiB payload
-- string.  The count follows RATE * elapsed time (it catches up after a
-- late wake-up), so the rate holds on a loaded machine.  Prints
-- "ready BYTES_PER_RECORD" (measured in-process with the collector
-- stopped) and runs until killed.
-- Usage: heap_leak.lua [RATE]
local ffi = require("ffi")
ffi.cdef[[int usleep(unsigned int usec);]]
local RATE = tonumber(arg[1]) or 100
local pad = string.rep("p", 1000)

local function record(i)
	return { id = i, payload = pad .. i }
end

local function uptime()
	local f = io.open("/proc/uptime")
	local t = f:read("*n")
	f:close()
	return t
end

collectgarbage("stop")
local keep, before = {}, collectgarbage("count")
for i = 1, 1000 do keep[i] = record(-i) end
local per = (collectgarbage("count") - before) * 1024 / 1000
keep = nil
collectgarbage("restart")
collectgarbage()

sessions = {}
local n, t0 = 0, uptime()
io.write(string.format("ready %.1f\n", per))
io.flush()
while true do
	local due = math.floor((uptime() - t0) * RATE)
	while n < due do
		n = n + 1
		sessions[n] = record(n)
	end
	ffi.C.usleep(5000)
end
-- SPDX-License-Identifier: MIT
