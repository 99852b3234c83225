-- lua-dkjson (pure Lua JSON): encode and decode an API response, with
-- key ordering and indentation as an API server would.
local C = require("corpus_common")
local json = require("dkjson")
local doc = C.document(40)
local keyorder = { "id", "status", "customer", "items", "tags", "note" }
C.run(function(n)
	local s = json.encode(doc, { indent = (n % 2 == 0), keyorder = keyorder })
	local back, _, err = json.decode(s)
	assert(back and not err, err)
	assert(#back.orders == #doc.orders)
end)
