-- sysbench_hot.lua: a sysbench Lua test (sysbench runs event() in a loop in
-- every worker thread, each thread with its own LuaJIT VM, from C).
-- Each event calls hot_a(3 K) then hot_b(K): a CPU split of 3:1 between
-- the two by construction (identical bodies, iteration counts).
-- jit.p keys: F: sysbench_hot.lua:hot_a sysbench_hot.lua:hot_b
-- Run: sysbench --threads=2 --time=SECONDS sysbench_hot.lua run
local function hot_a(n, x) for i = 1, n do x = (x * 1664525 + 1013904223) % 4294967296 end return x end
local function hot_b(n, x) for i = 1, n do x = (x * 1664525 + 1013904223) % 4294967296 end return x end

local K = 20000 -- about 1 ms per event with the JIT on
local x = 1

function event()
	x = hot_a(3 * K, x)
	x = hot_b(K, x)
end
-- SPDX-License-Identifier: MIT
