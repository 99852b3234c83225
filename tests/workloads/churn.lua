-- churn.lua [SECONDS]: compiles, runs and drops closures with load() at a
-- high rate (thousands per second), so the GC frees protos (and the JIT
-- their traces) all the time and new ones reuse the memory.  A symbolizer
-- that trusts what it reads later shows wrong names.
--
-- Generation i is a chunk named "@gen<k>.lua", k = i % 100, whose function
-- starts on line A = k % 50 + 1:
--   line A      function header and `if n < 0 then` (runs once per call)
--   line A + 1  10 * (k % 5) statements that never run
--   line A + 2  the loop (almost all the time) and the return
-- So every correct -jp=l key is gen<k>.lua:<A>, <A + 2> or <0> (a chunk's
-- header).  A key on line A + 1, or on another generation's lines, is a
-- frame named from another prototype that took the sampled one's memory:
-- the padding moves the loop's bytecode, so a PC of one generation falls
-- on another's never-run line.  -jp=F gives gen<k>.lua:fn (the local it
-- is called through).
-- Runs until killed, or for SECONDS of CPU time.

local load, rep = loadstring or load, string.rep

local LOOP = "for i = 1, n do x = (x * 1664525 + 1013904223) % 4294967296 end return x end"
local sources = {}
for k = 0, 99 do
	sources[k] = rep("\n", k % 50) .. "return function(n, x) if n < 0 then\n" ..
		rep("x = x + 1 ", 10 * (k % 5)) .. "\nend " .. LOOP
end

local secs = tonumber(arg and arg[1])
local x, i = 1, 0
while not secs or os.clock() < secs do
	local k = i % 100
	local fn = assert(load(sources[k], "@gen" .. k .. ".lua"))()
	x = fn(5000, x)
	i = i + 1
end
return i
-- SPDX-License-Identifier: MIT
