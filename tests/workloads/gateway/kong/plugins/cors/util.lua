-- Shared by the cors and jwt handlers of tests/t_groups.sh.
local busy = require "kong.tools.busy"
local M = {}
function M.work(ms) busy.spin(ms) end
return M
-- SPDX-License-Identifier: MIT
