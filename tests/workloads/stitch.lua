-- stitch.lua [SECONDS]: Lua code running in coroutines, each resumed a
-- different way, next to code on the main thread, by CPU budgets per round
-- (rounds of random length):
--   in_resume   25  in a coroutine resumed by coroutine.resume
--   in_wrap     25  in a coroutine resumed through coroutine.wrap
--   in_cresume  25  in a coroutine resumed by a C function through
--                   lua_resume (chost.resume of tests/hosts/lhost; under
--                   plain luajit this phase runs on the main thread as
--                   in_main)
--   in_main     25  on the main thread
-- Each in_X is called by body_X, the coroutine's function.  Stitched, every
-- sample reaches down to the main chunk (stitch.lua:0); jit.p's view ends a
-- coroutine's stack at body_X.
-- Runs until killed, or for SECONDS of CPU time.
local clock = os.clock

local function spin(t_end, x)
	repeat
		for i = 1, 500 do x = (x * 1664525 + 1013904223) % 4294967296 end
	until clock() >= t_end
	return x
end

-- Same bodies, distinct functions: no tail calls, so every frame stays.
local function in_resume(t_end) local r = spin(t_end, 1) return r end
local function in_wrap(t_end) local r = spin(t_end, 2) return r end
local function in_cresume(t_end) local r = spin(t_end, 3) return r end
local function in_main(t_end) local r = spin(t_end, 4) return r end

local function body_resume(t_end) local r = in_resume(t_end) return r end
local function body_wrap(t_end) local r = in_wrap(t_end) return r end
local function body_cresume(t_end) local r = in_cresume(t_end) return r end

local cresume = chost and chost.resume
local secs = tonumber(arg and arg[1])
math.randomseed(os.time())
while not secs or clock() < secs do
	local q = (0.002 + 0.006 * math.random()) / 4
	coroutine.resume(coroutine.create(body_resume), clock() + q)
	coroutine.wrap(body_wrap)(clock() + q)
	if cresume then
		cresume(coroutine.create(body_cresume), clock() + q)
	else
		in_main(clock() + q)
	end
	in_main(clock() + q)
end
-- SPDX-License-Identifier: MIT
