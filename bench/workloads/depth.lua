-- depth.lua DEPTH: a hot leaf at a stack depth of exactly DEPTH frames as
-- the BPF walker sees them: the C frame that runs the main chunk, the main
-- chunk, DEPTH-3 `descend` frames and `leaf`, which loops until killed.
-- Folded stack: luajit;@0x...;depth.lua:0;depth.lua:descend x(DEPTH-3);depth.lua:leaf
local DEPTH = assert(tonumber(arg[1]), "usage: depth.lua DEPTH")
assert(DEPTH >= 3, "DEPTH is at least 3")

local function leaf()
	local x = 1
	while true do
		for i = 1, 1000000 do x = (x * 1664525 + 1013904223) % 4294967296 end
	end
	return x
end

local function descend(d)
	local r -- not a tail call: every frame stays on the stack
	if d <= 0 then r = leaf() else r = descend(d - 1) end
	return r
end

local r
if DEPTH == 3 then r = leaf() else r = descend(DEPTH - 4) end
return r
