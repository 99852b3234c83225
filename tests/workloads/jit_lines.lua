-- jit_lines.lua [SECONDS]: three hot loops on known lines in known
-- proportions, each loop compiled to its own trace (tests/t_jit_truth.sh).
-- The loop bodies are the same code, so time follows iteration counts:
--   line 14: 50%   line 20: 30%   line 26: 20%
-- Rounds have a random length, so a fixed sampling period cannot alias.
-- Runs until killed, or for SECONDS of CPU time.
local band = bit.band
local secs = tonumber(arg and arg[1])

-- Keep each loop on its line: the lines are asserted by number.

local function loop_a(n, x)
	local s = x
	for i = 1, n do s = (s * 1664525 + band(i, 1023)) % 4294967296 end
	return s
end

local function loop_b(n, x)
	local s = x
	for i = 1, n do s = (s * 1664525 + band(i, 1023)) % 4294967296 end
	return s
end

local function loop_c(n, x)
	local s = x
	for i = 1, n do s = (s * 1664525 + band(i, 1023)) % 4294967296 end
	return s
end

math.randomseed(os.time())
local clock = os.clock
local x, t0 = 1, clock()
-- A second argument "truth" ("-" for SECONDS: until killed) times each
-- loop's calls (os.clock around each, off the loops' lines) and ends every
-- round with a line "round a ITERATIONS SECS b ... c ...", the truth
-- measured in-process where iteration counts alone are not trusted
-- (emulation, tests/arm64/guest.sh).
local timed = arg and arg[2] == "truth"
while not secs or clock() - t0 < secs do
	local n = math.random(20000, 60000)
	if timed then
		local c0 = clock()
		x = loop_a(5 * n, x)
		local c1 = clock()
		x = loop_b(3 * n, x)
		local c2 = clock()
		x = loop_c(2 * n, x)
		local c3 = clock()
		io.stdout:write(string.format("round a %d %.6f b %d %.6f c %d %.6f\n",
			5 * n, c1 - c0, 3 * n, c2 - c1, 2 * n, c3 - c2))
		io.stdout:flush()
	else
		x = loop_a(5 * n, x)
		x = loop_b(3 * n, x)
		x = loop_c(2 * n, x)
	end
end
print(x)
-- SPDX-License-Identifier: MIT
