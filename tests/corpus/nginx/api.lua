-- A small JSON API of the kind OpenResty services are made of, for the
-- realistic corpus (tests/corpus/lib.sh, nginx:api): nothing in it is
-- written to be measured.  Per request it reads the headers and cookies,
-- looks the page up in an LRU cache (lua-resty-lrucache) or builds it,
-- filters and sorts the orders with a Lua comparator, encodes JSON with a
-- hand-written encoder (gsub with a callback for escapes, pairs, sorted
-- keys, string building), and tags the body with a SHA-1 ETag computed
-- through FFI (lua-nginx-string) before ngx.say sends it.
local lrucache = require("resty.lrucache")
local cookie = require("nginx.cookie")
local sha1 = require("nginx.sha1")
local to_hex = require("nginx.string").to_hex

local M = {}
local pages = assert(lrucache.new(200))	-- every page fits; they expire after 1 s

-- --- JSON encoding ---------------------------------------------------------

local escapes = { ['"'] = '\\"', ["\\"] = "\\\\", ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t" }

local function escape(s)
	return (s:gsub('[%c"\\]', function(c)
		return escapes[c] or string.format("\\u%04x", c:byte())
	end))
end

local encode_value

local function is_array(t)
	local n = 0
	for _ in pairs(t) do n = n + 1 end
	return n == #t
end

local function encode_table(t, out)
	if is_array(t) then
		out[#out + 1] = "["
		for i = 1, #t do
			if i > 1 then out[#out + 1] = "," end
			encode_value(t[i], out)
		end
		out[#out + 1] = "]"
		return
	end
	local keys = {}
	for k in pairs(t) do keys[#keys + 1] = tostring(k) end
	table.sort(keys, function(a, b) return a < b end)
	out[#out + 1] = "{"
	for i, k in ipairs(keys) do
		if i > 1 then out[#out + 1] = "," end
		out[#out + 1] = '"' .. escape(k) .. '":'
		encode_value(t[k], out)
	end
	out[#out + 1] = "}"
end

function encode_value(v, out)
	local ty = type(v)
	if ty == "string" then out[#out + 1] = '"' .. escape(v) .. '"'
	elseif ty == "number" then
		out[#out + 1] = (v == math.floor(v)) and string.format("%d", v) or string.format("%.2f", v)
	elseif ty == "boolean" then out[#out + 1] = tostring(v)
	elseif ty == "table" then encode_table(v, out)
	else out[#out + 1] = "null" end
end

local function encode(v)
	local out = {}
	encode_value(v, out)
	return table.concat(out)
end

-- --- the data ----------------------------------------------------------------

local names = { "Ada Lovelace", "Grace Hopper", "Alan Turing", "Edsger Dijkstra", "Barbara Liskov",
	"Donald Knuth", "Ken Thompson", "Niklaus Wirth", "Frances \"Fran\" Allen", "Dennis Ritchie" }
local cities = { "Berlin", "São Paulo", "Zürich", "Tokyo", "Nairobi", "Montréal", "Oslo" }
local statuses = { "new", "paid", "shipped", "cancelled" }

-- build_page(page, size): the orders of one page, the same for the same page.
local function build_page(page, size)
	local seed = page * 7919
	local function rand(n)
		seed = (seed * 1103515245 + 12345) % 2147483648
		return seed % n + 1
	end
	local orders = {}
	for i = 1, size do
		local items = {}
		for j = 1, rand(5) do
			items[j] = { sku = string.format("SKU-%05d", rand(99999)), qty = rand(4),
				price = rand(50000) / 100, gift = rand(6) == 1 }
		end
		orders[i] = { id = page * 1000 + i, status = statuses[rand(#statuses)],
			customer = { name = names[rand(#names)], city = cities[rand(#cities)],
				email = "user" .. rand(9999) .. "@example.org" },
			items = items, note = (rand(4) == 1) and "Leave at the door.\nRing twice." or nil }
	end
	return orders
end

local function total(order)
	local sum = 0
	for _, item in ipairs(order.items) do sum = sum + item.qty * item.price end
	return sum
end

-- --- handlers -------------------------------------------------------------------

local sorters = {
	total = function(a, b) return a.total > b.total end,
	name = function(a, b)
		if a.customer.name ~= b.customer.name then return a.customer.name < b.customer.name end
		return a.id < b.id
	end,
	id = function(a, b) return a.id < b.id end,
}

-- GET /api/orders?page=P&size=N&sort=total|name|id&status=S
function M.orders()
	local args = ngx.req.get_uri_args()
	local page, size = tonumber(args.page) or 1, math.min(tonumber(args.size) or 20, 100)
	local key = page .. ":" .. size
	local orders = pages:get(key)
	if not orders then
		orders = build_page(page, size)
		pages:set(key, orders, 1)
	end
	local headers = ngx.req.get_headers()
	local jar = cookie:new()
	local cookies = jar and jar:get_all() or {}
	local view = {}
	for _, o in ipairs(orders) do
		if not args.status or o.status == args.status then
			view[#view + 1] = { id = o.id, status = o.status, customer = o.customer,
				items = o.items, note = o.note, total = total(o) }
		end
	end
	table.sort(view, sorters[args.sort] or sorters.id)
	local body = encode({ page = page, count = #view, orders = view,
		client = { agent = headers["user-agent"], accept = headers["accept"],
			request_id = headers["x-request-id"], session = cookies.session,
			theme = cookies.theme } })
	local h = sha1:new()
	h:update(body)
	ngx.header["Content-Type"] = "application/json"
	ngx.header["ETag"] = '"' .. to_hex(h:final()) .. '"'
	ngx.say(body)
end

return M
