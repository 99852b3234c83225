-- coro.lua [SECONDS]: CPU split 3:1 between inside (runs in a coroutine,
-- resumed from Lua) and outside (runs on the main thread).  Same body,
-- 3:1 iteration counts.  The coroutine body (worker) has no name: its
-- caller is coroutine.resume, so jit.p prints it as coro.lua:<firstline>.
-- jit.p keys: f: inside 75%, outside 25% | F: coro.lua:inside, coro.lua:outside
-- -jp=2: "inside < coro.lua:19", "outside < coro.lua:0"
-- Runs until killed, or for SECONDS of CPU time.

local function inside(n, x)
	for i = 1, n do x = (x * 1664525 + 1013904223) % 4294967296 end
	return x
end

local function outside(n, x)
	for i = 1, n do x = (x * 1664525 + 1013904223) % 4294967296 end
	return x
end

local worker = coroutine.create(function(n, x)
	while true do
		x = inside(3 * n, x)
		n, x = coroutine.yield(x)
	end
end)

local secs = tonumber(arg and arg[1])
local K = 300000
local x = 1
while not secs or os.clock() < secs do
	-- A round of random length (the split within it is exact): fixed
	-- rounds alias with a fixed sampling period.
	local k = K * (0.5 + math.random())
	local ok
	ok, x = coroutine.resume(worker, k, x)
	assert(ok, x)
	x = outside(k, x)
end
return x
-- SPDX-License-Identifier: MIT
