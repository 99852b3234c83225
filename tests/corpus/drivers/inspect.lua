-- lua-inspect: human-readable dumps of nested tables with metatables,
-- shared references and a process filter, as debug logging does.
local C = require("corpus_common")
local inspect = require("inspect")
local doc = C.document(15)
local mt = { __index = function() return nil end, __tostring = function() return "Order" end }
for _, o in ipairs(doc.orders) do setmetatable(o, mt) end
doc.self = doc
doc.first = doc.orders[1]
local function hide_email(item, path)
	if path[#path] == "email" then return "<hidden>" end
	if path[#path] ~= inspect.METATABLE then return item end
end
C.run(function(n)
	local s
	if n % 2 == 0 then s = inspect(doc) else s = inspect(doc, { depth = 4, process = hide_email }) end
	assert(#s > 1000)
end)
