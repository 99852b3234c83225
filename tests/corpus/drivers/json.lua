-- lua-json (LPeg-based decoder, pure Lua encoder): round-trip of an API
-- response.
local C = require("corpus_common")
local json = require("json")
local doc = C.document(25)
C.run(function()
	local s = json.encode(doc)
	local back = json.decode(s)
	assert(#back.orders == #doc.orders)
end)
