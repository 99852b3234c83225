-- lua-cjson (C): decode a request body, transform it in Lua, encode the
-- response; the C parser and the Lua walk share the time.
local C = require("corpus_common")
local cjson = require("cjson")
local body = cjson.encode(C.document(60))
C.run(function()
	local doc = cjson.decode(body)
	local totals = {}
	for _, order in ipairs(doc.orders) do
		local sum = 0
		for _, item in ipairs(order.items) do
			sum = sum + item.qty * item.price * (1 - item.discount)
		end
		totals[#totals + 1] = { id = order.id, total = math.floor(sum * 100 + 0.5) / 100,
			city = order.customer.address.city }
	end
	local out = cjson.encode({ totals = totals, count = #totals })
	assert(#out > 0)
end)
