-- tests/t_groups.sh: an APISIX-style loop over two plugins' phase
-- methods in CPU shares 60 : 40 (limit-count, key-auth), for SECS
-- seconds of CPU time (arg 1).
local plugins = { require "apisix.plugins.limit-count", require "apisix.plugins.key-auth" }
local confs = { { ms = 6 }, { ms = 4 } }
local phases = { "access", "rewrite" }

local secs = tonumber(arg[1]) or 10
local stop = os.clock() + secs
print("ready")
io.stdout:flush()
-- Rounds of random length (see kong_runloop.lua).
while os.clock() < stop do
	local f = 0.5 + math.random()
	for i, p in ipairs(plugins) do p[phases[i]]({ ms = confs[i].ms * f }) end
end
-- SPDX-License-Identifier: MIT
