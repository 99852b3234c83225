-- wrk's script for tests/t_byroute.sh: two GETs of /api/users/ID for one
-- of /api/orders/ID, every ID distinct (folded to :id by --uri-template).
local n = 0
request = function()
	n = n + 1
	if n % 3 == 0 then
		return wrk.format("GET", "/api/orders/" .. n)
	end
	return wrk.format("GET", "/api/users/" .. n)
end
-- SPDX-License-Identifier: MIT
