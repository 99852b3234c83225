-- lua-lpeg with lua-lpeg-patterns' grammars (RFC 3986 URIs, RFC 5322
-- addresses, IPv4/IPv6, HTTP headers) and lpeg's own re module.
local C = require("corpus_common")
local lpeg = require("lpeg")
local re = require("re")
local uri = require("lpeg_patterns.uri")
local email = require("lpeg_patterns.email")
local IPv6 = require("lpeg_patterns.IPv6")
local IPv4 = require("lpeg_patterns.IPv4")
local http = require("lpeg_patterns.http")
local URI = uri.uri * lpeg.P(-1)
local EMAIL = email.email * lpeg.P(-1)
local V6 = IPv6.IPv6address * lpeg.P(-1)
local V4 = IPv4.IPv4address * lpeg.P(-1)
local CTYPE = http.Content_Type * lpeg.P(-1)
local kv = re.compile([[
	list <- {| pair (';' %s* pair)* |}
	pair <- {| {:key: [a-z_]+ :} '=' {:value: [^;]* :} |}
]])
local uris = { "https://user:pw@api.example.org:8443/v2/orders/100123?expand=items&sort=-date#top",
	"http://[2001:db8::1]/status", "ftp://ftp.example.com/pub/file.tar.gz",
	"urn:isbn:0451450523", "mailto:ops@example.org?subject=alert" }
local mails = { "ada.lovelace@example.org", "\"john..doe\"@example.com", "ops+alerts@sub.example.co.uk" }
local v6 = { "2001:db8:85a3::8a2e:370:7334", "::1", "fe80::1ff:fe23:4567:890a", "::ffff:192.0.2.128" }
C.run(function(n)
	for _, u in ipairs(uris) do assert(URI:match(u), u) end
	for _, m in ipairs(mails) do assert(EMAIL:match(m), m) end
	for _, a in ipairs(v6) do assert(V6:match(a), a) end
	assert(V4:match("192.168." .. (n % 256) .. ".1"))
	assert(CTYPE:match("text/html; charset=utf-8"))
	assert(#kv:match("session=abc123; path=/; domain=example.org; max_age=3600") == 4)
end)
