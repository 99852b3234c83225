-- churn_calls.lua [SECONDS]: loads, runs and drops two-level chunks at a
-- high rate, so that prototypes, closures and call sites of one generation
-- take the memory of earlier ones while the walker caches what it met
-- (bpf/walkcache.bpf.h: functions, prototypes, call sites).
--
-- Generation i is a chunk named "@cc<k>.lua", k = i % 40:
--   `outer` declares k % 9 locals, then calls `inner` (so the CALL's frame
--   size differs between generations at the same return PC), and inner
--   spins.  Both start k % 13 lines down.
-- A correct stack names outer and inner of one and the same generation,
-- outer below inner.  A cache trusted for another generation's function,
-- prototype or call site shows as a mixed pair, an inner without its
-- outer, or a bad frame.
local load, rep = loadstring or load, string.rep

local SPIN = "for i = 1, n do x = (x * 1664525 + 1013904223) % 4294967296 end return x"
local sources = {}
for k = 0, 39 do
	local pad = {}
	for j = 1, k % 9 do pad[#pad + 1] = "local p" .. j .. " = x + " .. j end
	sources[k] = rep("\n", k % 13) ..
		"local function inner(n, x) " .. SPIN .. " end\n" ..
		"local function outer(n, x) " .. table.concat(pad, " ") ..
		" local r = inner(n, x) return r end\n" ..
		"return outer"
end

local secs = tonumber(arg and arg[1])
local x, i = 1, 0
while not secs or os.clock() < secs do
	local k = i % 40
	local outer = assert(load(sources[k], "@cc" .. k .. ".lua"))()
	x = outer(3000 + k * 37, x)
	i = i + 1
end
return i
-- SPDX-License-Identifier: MIT
