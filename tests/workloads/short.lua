-- short.lua [SECONDS]: a program that lives about SECONDS (default 0.1) of
-- CPU time and exits, like LuaJIT's bench/recursive-ack run small: a
-- profiler launching it with `-- COMMAND` must still name every frame.
local function ack(m, n)
	if m == 0 then return n + 1 end
	if n == 0 then return ack(m - 1, 1) end
	return ack(m - 1, ack(m, n - 1))
end

local secs = tonumber(arg and arg[1]) or 0.1
local t_end, x = os.clock() + secs, 0
while os.clock() < t_end do x = x + ack(2, 200) end
return x
-- SPDX-License-Identifier: MIT
