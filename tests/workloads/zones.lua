-- zones.lua [SECONDS]: CPU split 2:1 between the jit.zone zones "alpha"
-- and "beta", JIT on.  Each zone runs its own function (work_alpha,
-- work_beta: same body, 2:1 iterations), so zone and stack must agree.
-- jit.p keys: -jp=z: alpha 67%, beta 33% | f: work_alpha, work_beta
-- jit.p delivers samples at the next safe point, which under the JIT can be
-- after the zone changed, so its -jp=z can be skewed with the JIT on;
-- with -joff it matches.  Runs until killed, or for SECONDS of CPU time.

local zone = require("jit.zone")

local function work_alpha(n, x)
	for i = 1, n do x = (x * 1664525 + 1013904223) % 4294967296 end
	return x
end
local function work_beta(n, x)
	for i = 1, n do x = (x * 1664525 + 1013904223) % 4294967296 end
	return x
end

local secs = tonumber(arg and arg[1])
local K = 300000
local x = 1
while not secs or os.clock() < secs do
	-- A round of random length (the split within it is exact): fixed
	-- rounds alias with a fixed sampling period.
	local k = K * (0.5 + math.random())
	zone("alpha")
	x = work_alpha(2 * k, x)
	zone()
	zone("beta")
	x = work_beta(k, x)
	zone()
end
return x
-- SPDX-License-Identifier: MIT
