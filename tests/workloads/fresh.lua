-- fresh.lua [SECONDS]: code loaded anew every round and collected right
-- after it ran, as test runners (busted loading spec files) and template
-- engines do: its prototypes die long before a profiler's next drain.
--
-- Each round load()s a new chunk "@loaded.lua" (a new string each time,
-- since the last one was collected: a new fingerprint):
--   line 1  local function fresh_loop(n, x)
--   line 2    the loop (almost all its time)
--   line 3    return x
--   line 4  end
--   line 5  return function(n, x)   (fresh_run, the chunk's function)
--   line 6    x = fresh_loop(n, x)
-- runs it for 3 n iterations, drops it and collects (collectgarbage()), so
-- the prototypes are freed at once and the next round's take their memory,
-- then runs stable() (below) for 2 n iterations.  Both loops are the same
-- bytecode: the split is 60% fresh_loop (loaded.lua:2), 40% stable, less
-- what loading and collecting cost.  n is random per round (no aliasing
-- with a fixed sampling period), 1.5-4.5 ms of fresh code a round,
-- calibrated at start-up.  fresh_loop's name comes from fresh_run's
-- bytecode (an upvalue), which is dead too by the time it is read.
-- Runs until killed, or for SECONDS of CPU time.

local load = loadstring or load
local random, clock = math.random, os.clock

-- Built at run time, so that each round's chunk name is a new string.
local CHUNK = "loaded.lua"
local SOURCE = "local function fresh_loop(n, x)\n" ..
	"\tfor i = 1, n do x = (x * 1664525 + 1013904223) % 4294967296 end\n" ..
	"\treturn x\n" ..
	"end\n" ..
	"return function(n, x)\n" ..
	"\tx = fresh_loop(n, x)\n" ..
	"\treturn x\n" ..
	"end\n"

local function stable(n, x)
	for i = 1, n do x = (x * 1664525 + 1013904223) % 4294967296 end
	return x
end

-- Iterations per millisecond of this loop here (JIT on or off).
local per_ms
do
	local n, t0 = 0, clock()
	local x = 1
	while clock() - t0 < 0.2 do
		x = stable(10000, x)
		n = n + 10000
	end
	per_ms = n / ((clock() - t0) * 1000)
end

local secs = tonumber(arg and arg[1])
local x, round = 1, 0
while not secs or clock() < secs do
	local n = math.floor(per_ms * (0.5 + random()))	-- 1.5-4.5 ms of fresh code
	local fresh_run = assert(load(SOURCE, "@" .. CHUNK))()
	x = fresh_run(3 * n, x)
	fresh_run = nil
	collectgarbage()
	x = stable(2 * n, x)
	round = round + 1
end
return x
-- SPDX-License-Identifier: MIT
