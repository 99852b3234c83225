-- wrk's script for tests/t_gateway.sh: GETs of distinct paths.
local n = 0
request = function()
	n = n + 1
	return wrk.format("GET", "/api/users/" .. n)
end
-- SPDX-License-Identifier: MIT
