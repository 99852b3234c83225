-- lua-messagepack (pure Lua MessagePack): pack and unpack an API
-- response, as a cache or RPC layer does.
local C = require("corpus_common")
local mp = require("MessagePack")
local doc = C.document(40)
C.run(function()
	local s = mp.pack(doc)
	local back = mp.unpack(s)
	assert(#back.orders == #doc.orders)
end)
