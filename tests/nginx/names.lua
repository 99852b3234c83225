-- The request handler of tests/t_names.sh: nginx's own C functions and
-- library fast functions, each called through a local alias so that a
-- name taken from the call site ("alias_say") can be told from the one Lua
-- code knows the function by ("ngx.say").  Lines and shares do not matter
-- here, only names.
local M = {}

local alias_say, alias_headers = ngx.say, ngx.req.get_headers
local alias_gsub, alias_sort, alias_concat = string.gsub, table.sort, table.concat
local alias_upper = string.upper

local text = string.rep("alpha beta gamma delta ", 50)
local arr = {}
for i = 1, 300 do arr[i] = (i * 7919) % 307 end
local parts = {}
for i = 1, 100 do parts[i] = tostring(i) end

local function cb(w) return #w > 4 and w or nil end
local function less(a, b) return a < b end
local function shout(s) return alias_upper(s) end

function M.work()
	-- t_names.sh checks this: the server on its port is its own.
	alias_say("pid=", ngx.worker.pid())
	local h = alias_headers()
	local out = alias_gsub(text, "%a+", cb)
	for i = 1, #arr do arr[i] = (arr[i] * 31 + 7) % 307 end
	alias_sort(arr, less)
	local joined = alias_concat(parts, ",")
	for _ = 1, 200 do alias_say(shout(h.host or "x"), #out, #joined) end
end

return M
-- SPDX-License-Identifier: MIT
