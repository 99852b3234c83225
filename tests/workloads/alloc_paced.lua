-- Allocation at a steady pace, for tests/t_alloc_duty.sh: every 10 ms
-- big() builds n tables of 26 slots and small() n of 1 slot (n random
-- around N), then the rest of the 10 ms is slept (FFI usleep).  A server
-- allocates so: as requests come, not as fast as it can, so the
-- allocator probe's slowdown while attached does not change how much is
-- allocated in a window.  Bytes measured in-process as alloc.lua does
-- (collectgarbage("count") around each call, the GC stopped).
-- Usage: alloc_paced.lua SECONDS N [GOFILE]: prints "ready", waits for
-- GOFILE, then "truth big=BYTES small=BYTES" at the end.
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

local secs, per = tonumber(arg[1]) or 10, tonumber(arg[2]) or 100
local gofile = arg[3]
local count = collectgarbage
local bytes = { big = 0, small = 0 }

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

count("stop")
local keep
local start = now()
local tick = start
while tick - start < secs do
	local n = math.floor(per / 2 + math.random() * per)
	keep = big(n)
	keep = small(n)
	if count("count") > 32768 then
		count("collect")
		count("stop")
	end
	tick = tick + 0.01
	local left = tick - now()
	if left > 0 then ffi.C.usleep(math.floor(left * 1e6)) end
end
io.write(string.format("truth big=%d small=%d\n", bytes.big, bytes.small))
io.stdout:flush()
os.execute("sleep 0.5")
