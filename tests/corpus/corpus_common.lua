-- Shared by the corpus drivers (tests/corpus/drivers/*.lua): a realistic
-- document to feed the libraries, and the loop that runs a driver for a
-- bounded time.  The libraries under test are Debian's, not ours: this file
-- only builds their input.
local M = {}

-- run(body): calls body() until arg[1] seconds of wall time have passed
-- (default 5).  The measuring script stops the process earlier; the bound
-- only guarantees that a forgotten driver ends.
function M.run(body)
	local secs = tonumber(arg and arg[1]) or 5
	local deadline = os.time() + secs + 1
	local n = 0
	repeat
		body(n)
		n = n + 1
	until os.time() >= deadline
end

-- A deterministic pseudo-random sequence, so every run does the same work.
local seed = 12345
function M.rand(n)
	seed = (seed * 1103515245 + 12345) % 2147483648
	return seed % n + 1
end

local first = { "Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Ken", "Niklaus",
	"Frances", "John", "Margaret", "Dennis" }
local last = { "Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "Knuth", "Thompson",
	"Wirth", "Allen", "Backus", "Hamilton", "Ritchie" }
local cities = { "Berlin", "São Paulo", "Zürich", "Tokyo", "Nairobi", "Montréal", "Oslo" }
local products = { "keyboard", "monitor \"4K\"", "cable\tUSB-C", "mouse", "dock", "laptop stand",
	"webcam", "headset", "chair", "desk lamp" }

-- An e-commerce API response: orders with nested customers, addresses,
-- line items, tags, nulls-as-absent, floats, booleans and escapes.
function M.document(orders)
	local doc = { version = "2.3", generated = "2026-11-24T05:00:00Z", page = 1, orders = {} }
	for i = 1, orders do
		local items = {}
		for j = 1, M.rand(6) do
			items[j] = { sku = string.format("SKU-%05d", M.rand(99999)),
				name = products[M.rand(#products)], qty = M.rand(4),
				price = M.rand(50000) / 100, discount = (M.rand(3) == 1) and 0.1 or 0 }
		end
		doc.orders[i] = {
			id = 100000 + i,
			status = ({ "new", "paid", "shipped", "cancelled" })[M.rand(4)],
			customer = { name = first[M.rand(#first)] .. " " .. last[M.rand(#last)],
				email = "user" .. M.rand(9999) .. "@example.org", vip = M.rand(5) == 1,
				address = { street = M.rand(200) .. " Main Street", city = cities[M.rand(#cities)],
					zip = string.format("%05d", M.rand(99999)) } },
			items = items,
			tags = { "web", (M.rand(2) == 1) and "promo" or "regular", "eu" },
			note = (M.rand(4) == 1) and "Leave at the door.\nRing twice." or nil,
		}
	end
	return doc
end

return M
