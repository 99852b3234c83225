-- CPU for ms milliseconds of this process's CPU clock (os.clock), in a
-- loop the JIT compiles; outside any plugin's path.
local M = {}
function M.spin(ms)
	local stop, x = os.clock() + ms / 1000, 0
	while os.clock() < stop do
		for i = 1, 200 do x = x + i % 7 end
	end
	return x
end
return M
-- SPDX-License-Identifier: MIT
