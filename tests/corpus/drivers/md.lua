-- lua-markdown (markdown.lua; this file is not named markdown.lua because the
-- library runs its command line when arg[0] ends so): renders a README-like document to HTML;
-- the library is built on gsub with callbacks, gmatch and string.find.
local C = require("corpus_common")
local markdown = require("markdown")
local parts = {}
for i = 1, 12 do
	parts[#parts + 1] = ([[
## Section %d: *emphasis* and **strong** text

Some prose with `inline code`, a [link](http://example.org/page%d "title") and
an automatic <http://example.com/%d> link, plus an e-mail <ops%d@example.org>.

* first item with _underscores_
* second item
    1. nested ordered
    2. another one

> A quote with a [reference link][ref%d].

    local code = "indented block"
    print(code)

[ref%d]: http://example.net/%d
]]):format(i, i, i, i, i, i, i)
end
local text = table.concat(parts, "\n")
C.run(function()
	local html = markdown(text)
	assert(html:find("<h2>"))
end)
