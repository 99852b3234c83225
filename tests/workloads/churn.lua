-- churn.lua [SECONDS]: compiles, runs and drops closures with load() at a
-- high rate (thousands per second), so the GC frees protos (and the JIT
-- their traces) all the time and new ones reuse the memory.  A symbolizer
-- that caches by proto address without revalidating shows wrong names.
-- Generation i is a chunk named "@gen<k>.lua", k = i % 100, whose function
-- sits on line (k % 50) + 1 (all on that one line), so every correct key
-- satisfies line == k % 50 + 1: -jp=l gives gen<k>.lua:<line>; -jp=F gives
-- gen<k>.lua:fn (the local it is called through).
-- Runs until killed, or for SECONDS of CPU time.

local load, rep = loadstring or load, string.rep

local BODY = "return function(n, x) for i = 1, n do x = (x * 1664525 + 1013904223) % 4294967296 end return x end"
local sources = {}
for k = 0, 99 do sources[k] = rep("\n", k % 50) .. BODY end

local secs = tonumber(arg and arg[1])
local x, i = 1, 0
while not secs or os.clock() < secs do
	local k = i % 100
	local fn = assert(load(sources[k], "@gen" .. k .. ".lua"))()
	x = fn(5000, x)
	i = i + 1
end
return i
