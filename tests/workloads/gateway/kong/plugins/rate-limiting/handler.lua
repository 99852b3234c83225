-- A Kong-layout plugin for tests/t_groups.sh: burns CPU for ms milliseconds.
local busy = require "kong.tools.busy"
local M = {}
function M.access(ms) busy.spin(ms) end
return M
-- SPDX-License-Identifier: MIT
