-- The request handler of tests/t_nginx.sh, with a CPU split known by
-- construction and measured in-process:
--   parse  : render = 2 : 1  (identical bodies, iteration counts)
-- Each request runs in its own coroutine, which nginx resumes from C; the
-- handler yields once in the middle (ngx.sleep(0)), so every request is
-- resumed from C at least twice.  Each part's CPU time (os.clock, the
-- worker's own CPU) is added to the shared dict "truth" under
-- "<worker pid>:parse" / ":render"; GET /truth?pid=P returns
-- "parse render" in seconds for worker P.
-- jit.p keys: F: handler.lua:parse handler.lua:render
local M = {}

local clock = os.clock
local K = 100000 -- about 0.5 ms of the 1.5 ms per request, with the JIT on

local function parse(n, x)
	for _ = 1, n do x = (x * 1664525 + 1013904223) % 4294967296 end
	return x
end

local function render(n, x)
	for _ = 1, n do x = (x * 1664525 + 1013904223) % 4294967296 end
	return x
end

local x = 1

function M.work()
	local truth, pid = ngx.shared.truth, ngx.worker.pid()
	local t0 = clock()
	x = parse(2 * K, x)
	local t1 = clock()
	ngx.sleep(0)	-- yield to nginx; resumed from C
	local t2 = clock()
	x = render(K, x)
	local t3 = clock()
	truth:incr(pid .. ":parse", t1 - t0, 0)
	truth:incr(pid .. ":render", t3 - t2, 0)
	ngx.say(x)
end

function M.truth()
	local truth, pid = ngx.shared.truth, ngx.var.arg_pid
	ngx.say(string.format("%.6f %.6f", truth:get(pid .. ":parse") or 0,
		truth:get(pid .. ":render") or 0))
end

return M
-- SPDX-License-Identifier: MIT
