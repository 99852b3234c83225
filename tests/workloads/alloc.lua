-- Allocation with a known split, for tests/t_alloc.sh (-e alloc): each
-- round, big() builds 3n small tables and small() n, n random (so no fixed
-- sampling interval can alias with the rounds).  The bytes each function
-- allocates are measured in-process: collectgarbage("count") diffed around
-- each call with the GC stopped (a full collection between rounds keeps
-- the heap small; it frees, it allocates next to nothing).  Runs for
-- arg[1] seconds (default 5), then prints "truth big=BYTES small=BYTES".
local secs = tonumber(arg[1]) or 5
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
	for i = 1, 3 * n do t[i] = { i } end
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

count("stop")
local deadline = os.clock() + secs
local keep
while os.clock() < deadline do
	local n = 20 + rnd(200)
	keep = big(n)
	keep = small(n)
	if count("count") > 32768 then
		count("collect")
		count("stop")
	end
end
io.write(string.format("truth big=%d small=%d\n", bytes.big, bytes.small))
