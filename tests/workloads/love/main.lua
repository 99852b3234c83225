-- A game loop of our own for LÖVE (tests/t_runtimes.sh): every frame
-- steps a particle simulation (the hot function, step_particles) and
-- draws a few of the particles (cheap).  Ground truth: step_particles
-- takes most of the CPU time of the Lua side by construction; the test
-- checks that it is the top Lua function.

local particles = {}
for i = 1, 2000 do
	particles[i] = { x = math.random() * 320, y = math.random() * 240,
			 vx = math.random() - 0.5, vy = math.random() - 0.5 }
end

local function step_particles(dt)
	-- Several sub-steps per frame so that the simulation, not the
	-- renderer or the frame pacing, dominates the Lua time.
	for _ = 1, 40 do
		for i = 1, #particles do
			local p = particles[i]
			p.vy = p.vy + 9.81 * dt * 0.01
			p.x, p.y = p.x + p.vx, p.y + p.vy
			if p.x < 0 or p.x > 320 then p.vx = -p.vx end
			if p.y < 0 or p.y > 240 then p.vy = -p.vy * 0.9 end
		end
	end
end

function love.update(dt)
	step_particles(dt)
end

function love.draw()
	for i = 1, 50 do
		local p = particles[i]
		love.graphics.points(p.x, p.y)
	end
end
-- SPDX-License-Identifier: MIT
