-- demo.lua [SECONDS]: the workload behind `make demo`.  A toy web server
-- loop without sockets: it parses canned HTTP requests (parse_request, the
-- hot spot), routes them and renders an HTML page from a compiled template.
-- Everything stays in memory, so the profile is pure CPU.
-- Runs until killed, or for SECONDS of CPU time.

local concat, format = table.concat, string.format

-- Canned traffic, built once so the loop below does no I/O.
local function make_requests(n)
	local reqs = {}
	for i = 1, n do
		reqs[i] = format("GET /items?id=%d&page=%d&sort=name HTTP/1.1\r\n" ..
			"Host: shop.example\r\nUser-Agent: demo/%d\r\nAccept: text/html\r\n" ..
			"Accept-Language: en-GB,en;q=0.8\r\nCookie: session=%08x; theme=dark\r\n" ..
			"X-Request-Id: %d\r\nAccept-Encoding: gzip, deflate, br\r\n" ..
			"Cache-Control: no-cache\r\nConnection: keep-alive\r\n" ..
			"Referer: https://shop.example/items?id=%d\r\nDNT: 1\r\n" ..
			"Sec-Fetch-Mode: navigate\r\nSec-Fetch-Site: same-origin\r\n\r\n",
			i, i % 7, i % 3, i * 2654435761 % 2^32, i, i + 1)
	end
	return reqs
end

-- The hot function: a byte-level HTTP parser (request line, headers,
-- query string, cookies).  It is written with string.byte/string.sub,
-- which the JIT compiles into the function's own traces, so the profile
-- charges its time to parse_request itself rather than to C helpers.
local byte, sub, lower = string.byte, string.sub, string.lower
local CR, COLON, SPACE, QMARK, AMP, EQ, SEMI = 13, 58, 32, 63, 38, 61, 59

local function split_pairs(s, sep, into)
	local i, n = 1, #s
	while i <= n do
		local j, eq = i, nil
		while j <= n and byte(s, j) ~= sep do
			if not eq and byte(s, j) == EQ then eq = j end
			j = j + 1
		end
		if eq then
			local k = sub(s, i, eq - 1)
			if byte(k, 1) == SPACE then k = sub(k, 2) end
			into[k] = sub(s, eq + 1, j - 1)
		end
		i = j + 1
	end
	return into
end

local function parse_request(raw)
	local n, i = #raw, 1
	while byte(raw, i) ~= SPACE do i = i + 1 end
	local method = sub(raw, 1, i - 1)
	local t0 = i + 1
	i = t0
	while byte(raw, i) ~= SPACE do i = i + 1 end
	local target = sub(raw, t0, i - 1)
	while byte(raw, i) ~= CR do i = i + 1 end
	local req = { method = method, headers = {}, params = {}, cookies = {} }
	local q = 1
	while q <= #target and byte(target, q) ~= QMARK do q = q + 1 end
	req.path = sub(target, 1, q - 1)
	split_pairs(sub(target, q + 1), AMP, req.params)
	i = i + 2
	while i < n and byte(raw, i) ~= CR do
		local name0 = i
		while byte(raw, i) ~= COLON do i = i + 1 end
		local name = lower(sub(raw, name0, i - 1))
		i = i + 2
		local v0 = i
		while byte(raw, i) ~= CR do i = i + 1 end
		req.headers[name] = sub(raw, v0, i - 1)
		i = i + 2
	end
	split_pairs(req.headers.cookie or "", SEMI, req.cookies)
	return req
end

local PAGE = "<html><head><title>{{title}}</title></head><body>" ..
	"<h1>{{title}}</h1><p>Hello, {{user}} ({{lang}})</p><table>{{rows}}</table></body></html>"

-- Splits the template once into literal parts and variable names.
local function compile(tpl)
	local parts, pos = {}, 1
	for lit, name, nxt in tpl:gmatch("(.-){{(%w+)}}()") do
		parts[#parts + 1] = lit
		parts[#parts + 1] = name
		pos = nxt
	end
	parts[#parts + 1] = sub(tpl, pos)
	return parts
end

-- Fills the compiled template; the table rows are built in a loop.
local function render(parts, vars, nrows)
	local rows = {}
	for i = 1, nrows do
		rows[i] = format("<tr><td>%d</td><td>item %d</td></tr>", i, vars.id + i)
	end
	vars.rows = concat(rows)
	local out = {}
	for i = 1, #parts do
		out[i] = i % 2 == 0 and tostring(vars[parts[i]]) or parts[i]
	end
	return concat(out)
end

local TEMPLATE = compile(PAGE)

local function handle(raw)
	local req = parse_request(raw)
	if req.path ~= "/items" then return 404, "" end
	local body = render(TEMPLATE, {
		title = "Items page " .. req.params.page, user = req.headers["user-agent"],
		lang = sub(req.headers["accept-language"], 1, 5), id = tonumber(req.params.id),
	}, 4)
	return 200, body
end

local secs = tonumber(arg and arg[1])
local requests = make_requests(1000)
local bytes = 0
while not secs or os.clock() < secs do
	for i = 1, #requests do
		local status, body = handle(requests[i])
		bytes = bytes + status + #body
	end
end
return bytes
-- SPDX-License-Identifier: MIT
