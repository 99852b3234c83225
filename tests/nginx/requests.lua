-- The handlers of tests/t_requests.sh: each counts itself in the shared
-- dict, then waits in ngx.sleep in its phase until the test is done;
-- GET /truth says how many wait.  The timer sleeps as long.
local M = {}

local function wait()
	ngx.shared.sleepers:incr("n", 1, 0)
	ngx.sleep(120)
end

function M.content() wait() ngx.say("done") end
function M.rewrite() wait() end
function M.access() wait() end

-- A light thread that sleeps beside its request, which waits for it.
function M.threads()
	local t = ngx.thread.spawn(function() ngx.sleep(120) end)
	wait()
	ngx.thread.wait(t)
	ngx.say("done")
end

function M.init_worker()
	ngx.timer.at(0, function() ngx.sleep(120) end)
end

function M.truth()
	ngx.say(ngx.shared.sleepers:get("n") or 0)
end

return M
-- SPDX-License-Identifier: MIT
