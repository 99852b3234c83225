-- wrk script for the corpus's JSON API (tests/corpus/nginx/api.lua):
-- browser-like headers and cookies, pages, sizes, sort orders and filters
-- that vary from request to request, so the cache both hits and misses.
local sorts = { "total", "name", "id" }
local statuses = { "", "&status=paid", "&status=shipped" }
local n = 0
request = function()
	n = n + 1
	local path = string.format("/api/orders?page=%d&size=%d&sort=%s%s", n % 61 + 1,
		20 + n % 3 * 20, sorts[n % 3 + 1], statuses[n % 5 % 3 + 1])
	return wrk.format("GET", path, {
		["User-Agent"] = "Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0",
		["Accept"] = "application/json, text/plain, */*",
		["Accept-Language"] = "en-GB,en;q=0.8,de;q=0.5",
		["Cookie"] = "session=s" .. n % 1000 .. "; theme=dark; consent=yes",
		["X-Request-Id"] = "req-" .. n,
	})
end
