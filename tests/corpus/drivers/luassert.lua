-- lua-busted's assertion library (luassert + say): deep comparisons,
-- matchers, spies, stubs and failing assertions with formatted messages,
-- as a busted test run exercises them.
local C = require("corpus_common")
local assert = require("luassert")
local spy = require("luassert.spy")
local stub = require("luassert.stub")
local match = require("luassert.match")
local doc = C.document(8)
local copy = C.document(8)
C.run(function()
	assert.are.same(doc, doc)
	assert.is_not.same(doc, copy)
	assert.is_true(#doc.orders == 8)
	assert.matches("^SKU%-%d+$", doc.orders[1].items[1].sku)
	assert.has_error(function() error("boom") end, "boom")
	local api = { fetch = function(id) return { id = id } end }
	local s = spy.on(api, "fetch")
	for i = 1, 10 do api.fetch(i) end
	assert.spy(s).was.called(10)
	assert.spy(s).was.called_with(match.is_number())
	api.fetch:revert()
	local st = stub(api, "fetch").returns({ id = 0 })
	assert.are.equal(0, api.fetch(5).id)
	st:revert()
	local ok = pcall(assert.are.same, doc.orders[1], copy.orders[1])	-- a formatted failure
	assert.is_false(ok)
end)
