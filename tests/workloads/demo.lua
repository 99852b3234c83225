-- demo.lua [SECONDS]: the workload behind `make demo`.  A toy web server
-- loop without sockets: it parses canned HTTP requests (parse_request, the
-- hot spot), routes them and renders an HTML page from a template (render).
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
			"X-Request-Id: %d\r\n\r\n", i, i % 7, i % 3, i * 2654435761 % 2^32, i)
	end
	return reqs
end

-- The hot function: request line, headers, query string, cookies.
local function parse_request(raw)
	local method, target = raw:match("^(%u+) (%S+) HTTP/1%.%d\r\n")
	local path, query = target:match("^([^?]*)%??(.*)$")
	local req = { method = method, path = path, headers = {}, params = {}, cookies = {} }
	for name, value in raw:gmatch("\r\n([%w-]+): ([^\r]*)") do
		req.headers[name:lower()] = value
	end
	for k, v in query:gmatch("([^&=]+)=([^&]*)") do
		req.params[k] = tonumber(v) or v
	end
	for k, v in (req.headers.cookie or ""):gmatch("([%w_]+)=([^;]*)") do
		req.cookies[k] = v
	end
	return req
end

local PAGE = "<html><head><title>{{title}}</title></head><body>" ..
	"<h1>{{title}}</h1><p>Hello, {{user}} ({{lang}})</p><table>{{rows}}</table></body></html>"

-- Fills the template; the table rows are built in a loop.
local function render(tpl, vars, nrows)
	local rows = {}
	for i = 1, nrows do
		rows[i] = format("<tr><td>%d</td><td>item %d</td></tr>", i, vars.id + i)
	end
	vars.rows = concat(rows)
	return (tpl:gsub("{{(%w+)}}", vars))
end

local function handle(raw)
	local req = parse_request(raw)
	if req.path ~= "/items" then return 404, "" end
	local body = render(PAGE, {
		title = "Items page " .. req.params.page, user = req.headers["user-agent"],
		lang = req.headers["accept-language"]:match("^[%a-]+"), id = req.params.id,
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
