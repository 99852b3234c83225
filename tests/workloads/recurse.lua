-- recurse.lua [SECONDS]: a call chain 200 Lua frames deep (dive) with all
-- the hot work at the leaf (leaf, own inner loop).  dive is not a tail
-- call, so every level stays on the stack while leaf runs.
-- jit.p keys: f: leaf ~100% | F: recurse.lua:leaf | -jp=2: "leaf < dive"
-- Full stack (-jp=-210): @0x... > recurse.lua:0 > dive x200 > leaf.
-- Runs until killed, or for SECONDS of CPU time.

local DEPTH = 200

local function leaf(n, x)
	for i = 1, n do x = (x * 1664525 + 1013904223) % 4294967296 end
	return x
end

local function dive(d, n, x)
	-- No tail calls ("return f(...)"): they would replace dive's frame.
	local r
	if d == 0 then r = leaf(n, x) else r = dive(d - 1, n, x) end
	return r
end

local secs = tonumber(arg and arg[1])
local x = 1
while not secs or os.clock() < secs do
	-- d = DEPTH-1 .. 0: DEPTH dive frames, leaf on top of them.
	x = dive(DEPTH - 1, 2000000, x)
end
return x
-- SPDX-License-Identifier: MIT
