-- nginx_app.lua: the request handler of the nginx row of figure 1
-- (content_by_lua_block { require("nginx_app").handle() }).  Each request
-- does a fixed amount of Lua work, table- and string-heavy like a template
-- renderer, so that Lua, not nginx's HTTP code, dominates the worker's CPU.
local format, concat = string.format, table.concat
local M = {}

local names = { "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta" }

local function score(i)
	local x = i
	for _ = 1, 200 do x = (x * 1664525 + 1013904223) % 4294967296 end
	return x % 1000
end

local function rows(n)
	local out = {}
	for i = 1, n do
		local r = { id = i, name = names[i % 8 + 1], score = score(i) }
		out[i] = format("<tr><td>%d</td><td>%s</td><td>%d</td></tr>", r.id, r.name:upper(), r.score)
	end
	return concat(out, "\n")
end

function M.handle()
	local n = tonumber(ngx.var.arg_n) or 40
	ngx.header["Content-Type"] = "text/html"
	ngx.print("<table>\n", rows(n), "\n</table>\n")
end

return M
-- SPDX-License-Identifier: MIT
