-- w631.lua [SECONDS]: CPU split 6:3:1 between the functions a, b and c.
-- Ground truth by construction: a, b and c have identical bodies and are
-- called with 6:3:1 iteration counts, so the split holds in the interpreter
-- (-joff) and under the JIT (each inner loop becomes its own trace, rooted
-- in a, b or c).  Each loop sits on one line so `l` keys are stable too.
-- jit.p keys: f: a b c | F: w631.lua:a w631.lua:b w631.lua:c | l: w631.lua:9 :10 :11
-- Runs until killed, or for SECONDS of CPU time.

local function a(n, x) for i = 1, n do x = (x * 1664525 + 1013904223) % 4294967296 end return x end
local function b(n, x) for i = 1, n do x = (x * 1664525 + 1013904223) % 4294967296 end return x end
local function c(n, x) for i = 1, n do x = (x * 1664525 + 1013904223) % 4294967296 end return x end

local secs = tonumber(arg and arg[1])
-- ROUND, an optional second argument ("-" for SECONDS: until killed): the
-- iterations of an average round, smaller where code runs slower (-joff
-- under emulation), so that a profile still spans many rounds.
local K = tonumber(arg and arg[2]) or 200000 -- ~10 ms a round with the JIT on
local random = math.random
local x = 1
while not secs or os.clock() < secs do
	-- Rounds of random length: a fixed-length round would alias with a
	-- fixed sampling period (c's 1 ms slot caught 0 or 1 times a round,
	-- depending on the phase).  Each round keeps the 6:3:1 split exactly.
	local k = K * (0.5 + random())
	x = a(6 * k, x)
	x = b(3 * k, x)
	x = c(k, x)
end
return x
-- SPDX-License-Identifier: MIT
