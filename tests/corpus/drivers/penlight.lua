-- lua-penlight: the utility belt as applications use it: stringx,
-- List, tablex, pretty, text templates and OrderedMap.
local C = require("corpus_common")
local stringx = require("pl.stringx")
local List = require("pl.List")
local tablex = require("pl.tablex")
local pretty = require("pl.pretty")
local template = require("pl.template")
local OrderedMap = require("pl.OrderedMap")
local doc = C.document(12)
local csv = {}
for _, o in ipairs(doc.orders) do
	for _, it in ipairs(o.items) do
		csv[#csv + 1] = table.concat({ o.id, "  " .. o.customer.name .. " ", it.sku, it.qty, it.price }, ",")
	end
end
csv = table.concat(csv, "\n")
local page = [[
# for _, o in ipairs(orders) do
<li>$(o.id) $(o.customer.name) ($(#o.items) items) $(o.status)</li>
# end
]]
C.run(function()
	local rows = List()
	for line in stringx.lines(csv) do
		local f = List(stringx.split(line, ",")):map(stringx.strip)
		rows:append(f)
	end
	local big = rows:filter(function(r) return tonumber(r[4]) >= 2 end)
	big:sort(function(a, b) return tonumber(a[5]) < tonumber(b[5]) end)
	local copy = tablex.deepcopy(doc)
	assert(tablex.deepcompare(copy, doc))
	local keys = tablex.keys(copy.orders[1])
	table.sort(keys)
	local m = OrderedMap()
	for _, k in ipairs(keys) do m:set(k, tostring(copy.orders[1][k])) end
	local s = pretty.write(copy.orders[1 + (#big % #copy.orders)])
	local html = template.substitute(page, { orders = doc.orders, ipairs = ipairs, _escape = "#" })
	assert(#s > 0 and #html > 0 and stringx.startswith(stringx.replace(s, "\n", " "), "{"))
end)
