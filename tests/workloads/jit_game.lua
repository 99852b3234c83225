-- jit_game.lua [SECONDS]: a game loop over FFI structs with libm calls,
-- JIT on (tests/t_jit_truth.sh).  The time is in the loop bodies, in
-- math.sin/cos/sqrt called from the traces; none of it is on a
-- `local function` header line.  Runs until killed, or for SECONDS of CPU.
local ffi = require("ffi")
local sin, cos, sqrt = math.sin, math.cos, math.sqrt
local secs = tonumber(arg and arg[1])

ffi.cdef[[
typedef struct { double x, y, vx, vy, phase; } lbp_entity;
]]

local N = 2000
local ents = ffi.new("lbp_entity[?]", N)
for i = 0, N - 1 do
	ents[i].x, ents[i].y, ents[i].phase = i, -i, i * 0.01
end

local function update_motion(dt)
	for i = 0, N - 1 do
		local e = ents[i]
		e.vx = cos(e.phase) * 3.0
		e.vy = sin(e.phase) * 3.0
		e.x = e.x + e.vx * dt
		e.y = e.y + e.vy * dt
		e.phase = e.phase + dt
	end
end

local function update_bounds()
	local far = 0
	for i = 0, N - 1 do
		local e = ents[i]
		local d = sqrt(e.x * e.x + e.y * e.y)
		if d > 1e6 then e.x, e.y = 0, 0 end
		far = far + sin(d)
	end
	return far
end

local function frame(dt)
	update_motion(dt)
	local far = update_bounds()	-- not a tail call: frame stays a frame
	return far
end

local acc, t0 = 0, os.clock()
while not secs or os.clock() - t0 < secs do
	for _ = 1, math.random(5, 15) do acc = acc + frame(1 / 60) end
end
print(acc)
-- SPDX-License-Identifier: MIT
