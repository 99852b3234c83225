-- lua-check (luacheck, a linter written in Lua): lexes, parses and
-- analyses real sources (Penlight's modules) as `luacheck` does.
local C = require("corpus_common")
local luacheck = require("luacheck")
local files = { "pl/tablex.lua", "pl/stringx.lua", "pl/List.lua", "pl/pretty.lua" }
local sources = {}
for _, f in ipairs(files) do
	local path = package.searchpath(f:gsub("%.lua$", ""):gsub("/", "."), package.path)
	local h = assert(io.open(path, "rb"))
	sources[#sources + 1] = h:read("*a")
	h:close()
end
C.run(function(n)
	local src = sources[n % #sources + 1]
	local report = luacheck.check_strings({ src }, { std = "max" })
	assert(report.warnings + report.errors >= 0)
end)
