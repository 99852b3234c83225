-- The spec that drivers/busted.lua has busted run again and again: what a
-- small project's test suite looks like (nested describes, hooks, spies,
-- stubs, deep comparisons, an expected error, a pending test).
local C = require("corpus_common")

describe("orders", function()
	local doc
	before_each(function()
		if os.time() >= CORPUS_DEADLINE then os.exit(0, true) end	-- closed: jit.p reports
		doc = C.document(4)
	end)

	it("has orders with items", function()
		assert.are.equal(4, #doc.orders)
		for _, o in ipairs(doc.orders) do
			assert.is_true(#o.items >= 1)
			assert.matches("@example%.org$", o.customer.email)
		end
	end)

	it("copies deeply", function()
		local copy = require("pl.tablex").deepcopy(doc)
		assert.are.same(doc, copy)
		copy.orders[1].items[1].qty = -1
		assert.are_not.same(doc, copy)
	end)

	describe("totals", function()
		local function total(o)
			local sum = 0
			for _, it in ipairs(o.items) do sum = sum + it.qty * it.price end
			return sum
		end

		it("are positive", function()
			for _, o in ipairs(doc.orders) do assert.is_true(total(o) > 0) end
		end)

		it("call the pricing service once per order", function()
			local svc = { price = function(o) return total(o) end }
			local s = spy.on(svc, "price")
			for _, o in ipairs(doc.orders) do svc.price(o) end
			assert.spy(s).was.called(#doc.orders)
		end)

		it("use the stubbed exchange rate", function()
			local fx = { rate = function() return 1.1 end }
			stub(fx, "rate").returns(2)
			assert.are.equal(2, fx.rate("EUR"))
			fx.rate:revert()
		end)

		it("reject a bad order", function()
			assert.has_error(function() total({ items = { { qty = "x", price = 1 } } }) end)
		end)
	end)

	pending("supports refunds")
end)
