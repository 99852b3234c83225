-- An APISIX-layout plugin (apisix/plugins/NAME.lua, phase methods) for
-- tests/t_groups.sh.
local busy = require "kong.tools.busy"
local _M = { name = "limit-count" }
function _M.access(conf) busy.spin(conf.ms) end
return _M
-- SPDX-License-Identifier: MIT
