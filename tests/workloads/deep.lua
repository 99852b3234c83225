-- deep.lua [SECONDS [DEPTH]]: descends DEPTH (default 10000) Lua frames
-- once, then stays hot at the bottom: spin (own inner loop) called from
-- bottom, for the whole run.  For stack-truncation tests: a sampler that
-- walks from the top sees spin < bottom < descend < descend < ...
-- jit.p keys: f: spin ~100% | -jp=3: "spin < bottom < descend"
-- Stack (caller first): @0x... > deep.lua:0 > descend x DEPTH > bottom > spin.
-- Runs until killed, or for SECONDS of CPU time.

local secs = tonumber(arg and arg[1])
local DEPTH = tonumber(arg and arg[2]) or 10000

local function spin(n, x)
	for i = 1, n do x = (x * 1664525 + 1013904223) % 4294967296 end
	return x
end

local function bottom()
	local x = 1
	while not secs or os.clock() < secs do x = spin(1000000, x) end
	return x
end

local function descend(d)
	-- Not a tail call, so all DEPTH frames stay on the stack.
	local r
	if d == 1 then r = bottom() else r = descend(d - 1) end
	return r
end

local r = descend(DEPTH) -- not a tail call: keep the main chunk's frame
return r
-- SPDX-License-Identifier: MIT
