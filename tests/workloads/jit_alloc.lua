-- A compiled loop that allocates (issue 26 item 3): collide() builds a
-- table per iteration in its loop, so the trace calls the VM's table
-- allocation and the GC steps from its machine code.  Its header line
-- (the `local function` line) never runs after the call: no time may sit
-- there.  Usage: jit_alloc.lua SECONDS
local clock = os.clock
local keep = {}
local function collide(objs, n)
	local hits = 0
	for i = 1, n do
		local o = objs[(i % #objs) + 1]
		local box = { x = o.x - 1, y = o.y - 1, w = 2, h = 2 }
		keep[i % 256] = box	-- escapes: allocated, not sunk
		if box.x < 10 and box.y < 10 then hits = hits + 1 end
	end
	return hits
end

local objs = {}
for i = 1, 64 do objs[i] = { x = i % 17, y = i % 13 } end
local secs = tonumber(arg and arg[1]) or 5
local t_end = clock() + secs
local acc = 0
while clock() < t_end do acc = acc + collide(objs, 100000) end
io.stdout:write(acc > 0 and "" or "?")
-- SPDX-License-Identifier: MIT
