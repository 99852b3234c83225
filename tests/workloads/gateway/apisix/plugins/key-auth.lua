-- An APISIX-layout plugin for tests/t_groups.sh.
local busy = require "kong.tools.busy"
local _M = { name = "key-auth" }
function _M.rewrite(conf) busy.spin(conf.ms) end
return _M
-- SPDX-License-Identifier: MIT
