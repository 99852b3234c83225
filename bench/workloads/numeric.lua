-- numeric.lua [SECONDS | bench T]: JIT-heavy floating-point loops.
-- A round is a fixed amount of work, about 4 ms: 140 Mandelbrot tiles
-- (mandel) and 7000 n-body steps (nbody), roughly 60/40 of the CPU time.
-- Ground truth: the split is measured, not assumed: the process CPU clock
-- is read around each phase, and each window reports the split it saw
-- ("split" in common.lua).  A fixed split by CPU budgets would not do:
-- LuaJIT records different traces in each process (and after a trace
-- flush), and mandel's speed varies by a third between them.
-- phases: numeric.lua:mandel numeric.lua:nbody
-- Work unit: one round.
local B = dofile((arg[0]:match("^(.*/)") or "./") .. "common.lua")
local cpu = B.cpu
local sqrt = math.sqrt

local function mandel(tiles)
	local units = 0
	for _ = 1, tiles do
		for y = 0, 15 do
			local ci = y / 8 - 1
			for x = 0, 15 do
				local cr = x / 8 - 1.5
				local zr, zi, n = 0.0, 0.0, 0
				while n < 50 and zr * zr + zi * zi < 4 do
					zr, zi = zr * zr - zi * zi + cr, 2 * zr * zi + ci
					n = n + 1
				end
				units = units + n + 1
			end
		end
	end
	return units
end

local N = 5
local px, py, pz, vx, vy, vz, m = {}, {}, {}, {}, {}, {}, {}
for i = 1, N do
	px[i], py[i], pz[i] = i, i * 0.5, -i
	vx[i], vy[i], vz[i] = 0, 0.01 * i, 0
	m[i] = 1 / i
end

local function nbody(steps)
	local units = 0
	for _ = 1, steps do
		for i = 1, N do
			local xi, yi, zi = px[i], py[i], pz[i]
			for j = i + 1, N do
				local dx, dy, dz = xi - px[j], yi - py[j], zi - pz[j]
				local d2 = dx * dx + dy * dy + dz * dz + 0.01
				local mag = 0.001 / (d2 * sqrt(d2))
				vx[i] = vx[i] - dx * m[j] * mag
				vy[i] = vy[i] - dy * m[j] * mag
				vz[i] = vz[i] - dz * m[j] * mag
				vx[j] = vx[j] + dx * m[i] * mag
				vy[j] = vy[j] + dy * m[i] * mag
				vz[j] = vz[j] + dz * m[i] * mag
			end
		end
		for i = 1, N do
			px[i], py[i], pz[i] = px[i] + 0.01 * vx[i], py[i] + 0.01 * vy[i], pz[i] + 0.01 * vz[i]
		end
		units = units + N * (N - 1) / 2
	end
	return units
end

local split = B.split
B.run(function()
	local t0 = cpu()
	mandel(140)
	local t1 = cpu()
	nbody(7000)
	local t2 = cpu()
	split["numeric.lua:mandel"] = split["numeric.lua:mandel"] + (t1 - t0)
	split["numeric.lua:nbody"] = split["numeric.lua:nbody"] + (t2 - t1)
	return 1
end)
-- SPDX-License-Identifier: MIT
