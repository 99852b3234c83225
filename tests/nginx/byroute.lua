-- The routes of tests/t_byroute.sh: each handler spins on the CPU for a
-- known time in a function of its own, so that a sample's frames say
-- which route and phase it ran in: users_content (content of
-- /api/users/ID), orders_access and orders_content (access and content
-- of /api/orders/ID), and timer_work (a timer init_worker starts, every
-- 20 ms).  Truth: each call's CPU time by os.clock (the worker's CPU
-- clock), summed per route and per phase in the shared dict; GET /truth
-- lists the sums in microseconds.
local M = {}

local function spin(ms)
	local t0, x = os.clock(), 0
	while os.clock() - t0 < ms / 1000 do
		for i = 1, 200 do x = x + i % 7 end
		-- a little garbage, for -e alloc's samples
		x = x + #{ x, i = x }
	end
	return x
end

local function timed(route, phase, fn)
	local t0 = os.clock()
	fn()
	local us = math.floor((os.clock() - t0) * 1e6)
	local truth = ngx.shared.truth
	truth:incr("route:" .. route, us, 0)
	truth:incr("phase:" .. phase, us, 0)
end

local function users_content() spin(0.6) end
local function orders_access() spin(0.3) end
local function orders_content() spin(0.3) end
local function timer_work() spin(1) end

local function served() ngx.shared.truth:incr("requests", 1, 0) end

function M.users() served(); timed("/api/users/:id", "content", users_content); ngx.say("u") end
function M.orders_access() served(); timed("/api/orders/:id", "access", orders_access) end
function M.orders() timed("/api/orders/:id", "content", orders_content); ngx.say("o") end

function M.init_worker()
	ngx.timer.every(0.02, function() timed("(timer)", "timer", timer_work) end)
end

function M.truth()
	local truth = ngx.shared.truth
	for _, k in ipairs(truth:get_keys(0)) do
		ngx.say(k, " ", truth:get(k))
	end
end

return M
-- SPDX-License-Identifier: MIT
