-- views.lua [SECONDS]: a call tree three levels deep with hot lines spread
-- over the file, for comparing every jit.p view (tests/t_views.sh).  All
-- hot work is one loop body in fixed proportions in every round (rounds of
-- random length, see below): the split holds by construction. In % of CPU:
--   function   total  self  hot lines (own work)
--   views.lua:0  100     0
--     mid         60    20  43: 10, 52: 10   (in jit.zone "work")
--       leaf_a    30    30  30: 30
--       leaf_b    10    10  35: 10
--     other       40    25  58: 25           (no zone)
--       leaf_a    15    15  30: 15
-- mid has the larger total, other the larger self: --tree and --tree=self
-- order them differently.
-- jit.p keys (JIT off; with the JIT on jit.p attributes late, see below):
--   f: leaf_a 45, other 25, mid 20, leaf_b 10
--   l: views.lua:30 45, :58 25, :43 10, :52 10, :35 10
--   2: "leaf_a < mid" 30, "other < views.lua:0" 25, "mid < views.lua:0" 20,
--      "leaf_a < other" 15, "leaf_b < mid" 10
--   s: leaf_a 45 (<- mid 67, <- other 33), other 25 (<- views.lua:0), ...
--   z: work 60, (none) 40
--   a: three hunks: @@ 27 @@ (lines 30, 35), @@ 40 @@ (43), @@ 49 @@ (52, 58)
-- jit.p takes a sample at the next safe point: with the JIT on that is a
-- trace exit, so its l view puts the loops' time on the "return x" lines
-- and its f and z views shift time between functions and zones.
-- Runs until killed, or for SECONDS of CPU time.

local zone = require("jit.zone")

local function leaf_a(n, x)
	for i = 1, n do x = (x * 1664525 + 1013904223) % 4294967296 end
	return x
end

local function leaf_b(n, x)
	for i = 1, n do x = (x * 1664525 + 1013904223) % 4294967296 end
	return x
end

local function mid(n, x)
	-- Called in zone "work"; calls both leaves, then works itself.
	x = leaf_a(6 * n, x)
	x = leaf_b(2 * n, x)
	for i = 1, 2 * n do x = (x * 1664525 + 1013904223) % 4294967296 end
	-- A gap of cold lines, so that jit.p's "a" view starts a new hunk
	-- for the second hot line of mid.
	x = x + 1
	x = x - 1
	x = x + 2
	x = x - 2
	x = x + 3
	x = x - 3
	for i = 1, 2 * n do x = (x * 1664525 + 1013904223) % 4294967296 end
	return x
end

local function other(n, x)
	x = leaf_a(3 * n, x)
	for i = 1, 5 * n do x = (x * 1664525 + 1013904223) % 4294967296 end
	return x
end

local secs = tonumber(arg and arg[1])
-- One round (20 units) is a few ms either way: ~20 ns per iteration
-- interpreted, ~2 ns compiled.
-- Each round draws its length between 0.5 and 1.5 times that, so that no
-- sampling period (ours, or jit.p's 250 Hz tick) can run in phase with the
-- rounds; the split inside each round stays exact.
local K = jit.status() and 20000 or 2000
local x = 1
math.randomseed(os.time())
while not secs or os.clock() < secs do
	local k = math.floor(K * (0.5 + math.random()))
	zone("work")
	x = mid(k, x)
	zone()
	x = other(k, x)
end
return x
-- SPDX-License-Identifier: MIT
