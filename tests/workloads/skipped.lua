-- skipped.lua [SECONDS]: code that branches over code it never runs.
-- One generated function, megabytes of bytecode: line 1 takes its
-- arguments, then for k = 1 .. BLOCKS
--   line 2k:     if n < 0 then              (runs: the test and its jump)
--   line 2k + 1:   x = x + 1 ... (PAD times) end   (never runs)
-- Each jump lands on an instruction no cache holds, so the interpreter
-- is often sampled in its dispatch right after the jump, while PC names
-- the jump's target.  Every sample must still be on an even line, or
-- on line 1, 0 (the header) or the last: an odd line inside never ran.  Run it
-- with -joff: compiled code has no such window.
local BLOCKS, PAD = 20000, 50
local parts = { "local n, x = ...\n" }
local body = string.rep("x = x + 1 ", PAD)
for k = 1, BLOCKS do
	parts[#parts + 1] = "if n < 0 then\n" .. body .. "end\n"
end
parts[#parts + 1] = "return x\n"
local fn = assert((loadstring or load)(table.concat(parts), "=skipped_gen"))
io.stderr:write("ready\n")	-- generated and compiled: the test profiles from here

local secs = tonumber(arg and arg[1])
local x = 0
while not secs or os.clock() < secs do
	x = fn(1, x)
end
return x
-- SPDX-License-Identifier: MIT
