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
while os.clock() < stop do
	rl.access(5)
	jwt.access(3)
	cors.header_filter(2)
end
