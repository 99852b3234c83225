-- Allocation with a known split, for tests/t_alloc.sh (-e alloc): each
-- round, big() builds n tables of 26 slots and small() n of 1 slot, n
-- random (so no fixed sampling interval can alias with the rounds): about
-- 3:1 in bytes (GC64) for 1:1 in allocations, so a profile that counted
-- allocations instead of bytes would fail.  The bytes each function
-- allocates are measured in-process: collectgarbage("count") diffed around
-- each call with the GC stopped (a full collection between rounds keeps
-- the heap small; it frees, it allocates next to nothing).
-- Usage: alloc.lua MIB [GOFILE [PER]]: prints "ready", waits for GOFILE to
-- exist (when given), allocates about MIB MiB in big() and small(), then
-- prints "truth big=BYTES small=BYTES cpu=SECONDS".  With PER, at a steady
-- pace, as a server allocates per request (tests/t_alloc_duty.sh): n
-- around PER each 10 ms, the rest of the 10 ms slept, so that a probe's
-- slowdown does not change how much is allocated when.
local budget = (tonumber(arg[1]) or 64) * 1048576
local gofile = arg[2] ~= "" and arg[2] or nil
local per = tonumber(arg[3])
local seed = 12345
local function rnd(m)
	seed = (seed * 1103515245 + 12345) % 2147483648
	return seed % m + 1
end

local count = collectgarbage
local bytes = { big = 0, small = 0 }

-- Each measures its own allocations; the caller calls each by its name,
-- so jit.p's naming (by the call site) names them big and small.
local function big(n)
	local before = count("count")
	local t = {}
	for i = 1, n do
		t[i] = { i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i }
	end
	bytes.big = bytes.big + (count("count") - before) * 1024
	return t
end

local function small(n)
	local before = count("count")
	local t = {}
	for i = 1, n do t[i] = { i } end
	bytes.small = bytes.small + (count("count") - before) * 1024
	return t
end

print("ready")
io.stdout:flush()
while gofile do
	local f = io.open(gofile)
	if f then f:close() break end
	os.execute("sleep 0.05")
end

-- The rest of a 10 ms tick, slept (FFI usleep); nothing without PER.
local pace = function() end
if per then
	local ffi = require("ffi")
	ffi.cdef[[
	struct lbp_ts { long sec, nsec; };
	int clock_gettime(int clk, struct lbp_ts *ts);
	int usleep(unsigned usec);
	]]
	local ts = ffi.new("struct lbp_ts")
	local function now()
		ffi.C.clock_gettime(1, ts)	-- CLOCK_MONOTONIC
		return tonumber(ts.sec) + tonumber(ts.nsec) * 1e-9
	end
	local tick = now()
	pace = function()
		tick = tick + 0.01
		local left = tick - now()
		if left > 0 then ffi.C.usleep(math.floor(left * 1e6)) end
	end
end

count("stop")
local keep
local clock0 = os.clock()
while bytes.big + bytes.small < budget do
	local n = per and math.floor(per / 2 + rnd(per)) or 20 + rnd(200)
	keep = big(n)
	keep = small(n)
	if count("count") > 32768 then
		count("collect")
		count("stop")
	end
	pace()
end
io.write(string.format("truth big=%d small=%d cpu=%.3f\n", bytes.big, bytes.small,
			os.clock() - clock0))
io.stdout:flush()
-- Alive a little longer: a profiler drains every 200 ms and names frames
-- from the live process.
os.execute("sleep 0.5")
-- SPDX-License-Identifier: MIT
