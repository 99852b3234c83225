-- C called from compiled code (issue 26): phases alternate pure Lua work
-- in burn() with C reached through a function the loop's trace inlines,
-- work() (FFI strlen over 1 MiB, the CPU case) or nap() (FFI usleep, the
-- blocking case).  Each phase is timed around the
-- whole phase (no clock call inside one); the truth goes to stderr as
-- "truth c PCT": the share of the measured time spent in the C phases,
-- and "truth c_ms MS": their length.
-- Usage: ffi_inlined.lua SECONDS cpu|tail|sleep (tail: strlen from scan's
-- tail call)
local ffi = require("ffi")
ffi.cdef[[
struct lbp_ts { long sec, nsec; };
int clock_gettime(int clk, struct lbp_ts *ts);
size_t strlen(const char *s);
int usleep(unsigned usec);
]]
local C = ffi.C
local secs = tonumber(arg[1]) or 5
local mode = arg[2] or "cpu"
-- CPU phases by the thread's CPU clock (a loaded machine's waits are in
-- neither the truth nor the samples), blocking by CLOCK_MONOTONIC.
local clock = mode == "sleep" and 1 or 3
local ts = ffi.new("struct lbp_ts")
local function now()
	C.clock_gettime(clock, ts)
	return tonumber(ts.sec) + tonumber(ts.nsec) * 1e-9
end
-- tail: 4 MiB, so that the interpreter's own part of an FFI call (-joff)
-- is a negligible part of the phase.
local big = string.rep("x", (mode == "tail" and 4 or 1) * 1024 * 1024)

local function burn(n)
	local s = 0
	for i = 1, n do s = s + (i * 7) % 13 end
	return s
end

-- Inlined into the loops below; the C call is not a tail call, so the
-- trace holds a snapshot inside the function, just after it.
local function work(s)
	local n = C.strlen(s)
	return tonumber(n) + 1
end
-- A tail call to C: the C function's caller is scan's caller.
local function scan(s)
	return C.strlen(s)
end
local function nap(us)
	local r = C.usleep(us)
	return r + 1
end

-- Each phase's length is drawn, half to 1.5 times its mean: phases of a
-- fixed few milliseconds let a 499 Hz sampler lock to their rhythm, which
-- spread the JIT-off share three times wider than its samples allow.
-- Park-Miller's generator: every product is exact in a double.
local seed = 20261201
local function around(mean)
	seed = seed * 16807 % 2147483647
	return math.floor(mean * (0.5 + seed / 2147483647))
end

local t_c, t_lua, acc = 0, 0, 0
local t_end = now() + secs
while true do
	local a = now()
	if a >= t_end then break end
	if mode == "cpu" then
		for _ = 1, around(40) do acc = acc + work(big) end
	elseif mode == "tail" then
		for _ = 1, around(10) do acc = acc + tonumber(scan(big)) end
	else
		for _ = 1, around(4) do acc = acc + nap(3000) end
	end
	local b = now()
	acc = acc + burn(around(mode == "sleep" and 1500000 or 150000))
	local c = now()
	t_c, t_lua = t_c + (b - a), t_lua + (c - b)
end
io.stderr:write(string.format("truth c %.1f\ntruth c_ms %.1f\n",
	100 * t_c / (t_c + t_lua), 1000 * t_c))
io.stdout:write(acc > 0 and "" or "?")
-- SPDX-License-Identifier: MIT
