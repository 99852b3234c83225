-- The request handler of tests/t_dump.sh: GET /sleep?id=N counts itself
-- in the shared dict, then waits in ngx.sleep (the line the test looks
-- for) until the test is done; GET /truth says how many wait.
local M = {}

function M.handler()
	local request_id = ngx.var.arg_id
	ngx.shared.sleepers:incr("n", 1, 0)
	ngx.sleep(120) -- DUMP_SLEEP_LINE
	ngx.say("done ", request_id)
end

function M.truth()
	ngx.say(ngx.shared.sleepers:get("n") or 0)
end

return M
-- SPDX-License-Identifier: MIT
