-- w631.lua [SECONDS | bench T]: the 6:3:1 workload.  a, b and c have
-- identical one-line bodies and are called with 6:3:1 iteration counts, so
-- the CPU split is 60/30/10 by construction, in the interpreter and under
-- the JIT (each inner loop is its own trace, rooted in a, b or c).
-- Ground truth (F keys): w631.lua:a 60, w631.lua:b 30, w631.lua:c 10.
-- truth: w631.lua:a=60 w631.lua:b=30 w631.lua:c=10
-- A round is 10*K LCG steps, about 4 ms with the JIT: not a multiple of
-- the 1 ms or 10 ms sampling intervals, so no sampler aliases with it.
-- Work unit: one LCG step.
local B = dofile((arg[0]:match("^(.*/)") or "./") .. "common.lua")

local function a(n, x) for i = 1, n do x = (x * 1664525 + 1013904223) % 4294967296 end return x end
local function b(n, x) for i = 1, n do x = (x * 1664525 + 1013904223) % 4294967296 end return x end
local function c(n, x) for i = 1, n do x = (x * 1664525 + 1013904223) % 4294967296 end return x end

local K = 73000
local x = 1
B.run(function()
	x = a(6 * K, x)
	x = b(3 * K, x)
	x = c(K, x)
	return 10 * K
end)
-- SPDX-License-Identifier: MIT
