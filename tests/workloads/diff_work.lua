-- diff_work.lua: a fixed amount of work split between three functions, for
-- tests/t_diff.sh: two runs with a known change of render's share.
--   diff_work.lua calibrate            prints the CPU seconds of one unit
--   diff_work.lua R O S ROUNDS OUT     ROUNDS rounds of R, O and S units of
--                                      render, other and rest, then writes
--                                      each one's measured CPU share to OUT
-- The three functions run the same loop, so units split the CPU as their
-- counts do.  Each round's counts vary at random (a fixed seed: two runs
-- with the same arguments do the same work) so no sampling period aliases
-- with the rounds.  The truth is measured in-process: os.clock around each
-- phase; the clock is read between phases only.
local clock = os.clock

local function render(n)
	local x = 0
	for i = 1, n do x = x + (i % 7) * 0.5 end
	return x
end

local function other(n)
	local x = 0
	for i = 1, n do x = x + (i % 7) * 0.5 end
	return x
end

local function rest(n)
	local x = 0
	for i = 1, n do x = x + (i % 7) * 0.5 end
	return x
end

if arg[1] == "calibrate" then
	render(1e7)
	local t0 = clock()
	render(1e8)
	print(string.format("%.3e", (clock() - t0) / 1e8))
	return
end

local R, O, S, rounds, out = tonumber(arg[1]), tonumber(arg[2]), tonumber(arg[3]),
	tonumber(arg[4]), arg[5]
local spent = { 0, 0, 0 }
local sink = 0
local seed = 12345

local function jitter()
	-- A linear congruential generator, not math.random: the same
	-- sequence on every LuaJIT build.
	seed = (seed * 1103515245 + 12345) % 2147483648
	return 0.5 + seed / 2147483648
end

for _ = 1, rounds do
	local f = jitter()
	local t0 = clock()
	sink = sink + render(math.floor(R * f))
	local t1 = clock()
	sink = sink + other(math.floor(O * f))
	local t2 = clock()
	sink = sink + rest(math.floor(S * f))
	local t3 = clock()
	spent[1], spent[2], spent[3] = spent[1] + t1 - t0, spent[2] + t2 - t1, spent[3] + t3 - t2
end
local total = spent[1] + spent[2] + spent[3]
local fh = assert(io.open(out, "w"))
fh:write(string.format("render %.4f\nother %.4f\nrest %.4f\ncpu %.4f\nsink %d\n",
	spent[1] / total, spent[2] / total, spent[3] / total, total, sink % 10))
fh:close()
-- SPDX-License-Identifier: MIT
