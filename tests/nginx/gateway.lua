-- The gateway of tests/t_gateway.sh: each request runs three Kong-layout
-- plugins, none of which yields: rate-limiting in access, jwt (whose
-- time is spent in cors/util.lua) in content, cors in the header filter
-- (inside content's first output call).  Truth: each plugin call's CPU
-- time by os.clock (the worker's CPU clock, which stops while it is off
-- the CPU), added up per plugin in the shared dict; GET /truth lists the
-- sums in microseconds.
local rl = require "kong.plugins.rate-limiting.handler"
local jwt = require "kong.plugins.jwt.handler"
local cors = require "kong.plugins.cors.handler"

local M = {}
local MS = { ["rate-limiting"] = 0.5, jwt = 0.3, cors = 0.2 }

local function timed(name, fn)
	local t0 = os.clock()
	fn(MS[name])
	ngx.shared.truth:incr(name, math.floor((os.clock() - t0) * 1e6), 0)
end

function M.access() timed("rate-limiting", rl.access) end
function M.header_filter() timed("cors", cors.header_filter) end

function M.content()
	timed("jwt", jwt.access)
	ngx.say("ok ", ngx.var.uri)
end

function M.truth()
	for _, k in ipairs({ "rate-limiting", "jwt", "cors" }) do
		ngx.say(k, " ", ngx.shared.truth:get(k) or 0)
	end
end

return M
-- SPDX-License-Identifier: MIT
