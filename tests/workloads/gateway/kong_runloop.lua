-- tests/t_groups.sh: a Kong-style run loop calling three plugins in
-- CPU shares 50 : 30 : 20 (rate-limiting, jwt, cors) plus 0 outside
-- them, for SECS seconds of CPU time (arg 1).  Run with package.path
-- set to this directory.
local rl = require "kong.plugins.rate-limiting.handler"
local jwt = require "kong.plugins.jwt.handler"
local cors = require "kong.plugins.cors.handler"

local secs = tonumber(arg[1]) or 10
local stop = os.clock() + secs
print("ready")
io.stdout:flush()
-- Rounds of random length, the split exact in each: a fixed round would
-- alias with a fixed sampling period (README.md).
while os.clock() < stop do
	local f = 0.5 + math.random()
	rl.access(5 * f)
	jwt.access(3 * f)
	cors.header_filter(2 * f)
end
-- SPDX-License-Identifier: MIT
