-- depth.lua DEPTH: a hot leaf at a stack depth of exactly DEPTH frames as
-- the BPF walker sees them: the C frame that runs the main chunk, the main
-- chunk, DEPTH-3 `descend` frames and `leaf`, which loops until killed.
-- Each `descend` is another function of another chunk (descend<i>.lua), so
-- that no frame repeats the one above it: the walker's worst case, since it
-- skips the reads for a function, prototype or chunk name met one frame up.
-- Folded stack: luajit;@0x...;depth.lua:0;descend1.lua:descend;...;
-- descend<DEPTH-3>.lua:descend;depth.lua:leaf
local DEPTH = assert(tonumber(arg[1]), "usage: depth.lua DEPTH")
assert(DEPTH >= 3, "DEPTH is at least 3")

local function leaf()
	local x = 1
	while true do
		for i = 1, 1000000 do x = (x * 1664525 + 1013904223) % 4294967296 end
	end
	return x
end

-- Not tail calls: every frame stays on the stack.
local CALLS_LEAF = "local leaf = ... return function() local r = leaf() return r end"
local CALLS_NEXT = "local descend = ... return function() local r = descend() return r end"

local load = loadstring or load
local descend = leaf
for i = DEPTH - 3, 1, -1 do
	local src = descend == leaf and CALLS_LEAF or CALLS_NEXT
	descend = assert(load(src, "@descend" .. i .. ".lua"))(descend)
end
local r = descend()
return r
-- SPDX-License-Identifier: MIT
