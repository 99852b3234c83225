-- A Kong-layout plugin for tests/t_groups.sh: burns CPU for ms milliseconds.
local util = require "kong.plugins.cors.util"
local M = {}
function M.header_filter(ms) util.work(ms) end
return M
-- SPDX-License-Identifier: MIT
