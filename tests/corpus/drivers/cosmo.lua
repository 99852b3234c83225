-- lua-cosmo (LPeg-based templates): fills a page template with nested
-- iteration and conditionals, as a web framework's view layer does.
local C = require("corpus_common")
local cosmo = require("cosmo")
local doc = C.document(20)
local page = [==[
<h1>$title</h1>
<table>
$orders[[<tr><td>$id</td><td>$name</td><td>$status</td>
$items[=[<td>$sku: $qty x $price</td>]=]</tr>
]]
</table>
$if{$vip}[[<p>VIP customers present</p>]]
]==]
local fill = cosmo.compile(page)
C.run(function()
	local out = fill({ title = "Orders", vip = true, ["if"] = cosmo.cif, orders = function()
		for _, o in ipairs(doc.orders) do
			cosmo.yield({ id = o.id, name = o.customer.name, status = o.status, items = o.items })
		end
	end })
	assert(#out > 100)
end)
