-- The request handler of tests/t_offcpu_nginx.sh: each request computes
-- in compute() and blocks the worker in block(), a loop of FFI usleep
-- calls, for lengths that vary by request (no sampling period can alias).
-- Each part's wall-clock time (CLOCK_MONOTONIC) is added to the shared
-- dict "truth" under "<worker pid>:compute" / ":block"; GET /truth?pid=P
-- returns "compute block" in seconds for worker P.
local ffi = require("ffi")
ffi.cdef[[
struct lbp_ts { long sec, nsec; };
int clock_gettime(int clk, struct lbp_ts *ts);
int usleep(unsigned usec);
]]
local C = ffi.C
local ts = ffi.new("struct lbp_ts")
local function now()
	C.clock_gettime(1, ts)	-- CLOCK_MONOTONIC
	return tonumber(ts.sec) + tonumber(ts.nsec) * 1e-9
end

local M = {}
local x, n = 1, 0

local function compute(k)
	for _ = 1, k do x = (x * 1664525 + 1013904223) % 4294967296 end
	return x
end

-- A loop of its own, so that a trace of it has block() as its base frame.
local function block(naps)
	for i = 1, naps do C.usleep(150 + (i * 7919 + n * 104729) % 300) end
end

function M.work()
	local truth, pid = ngx.shared.truth, ngx.worker.pid()
	n = n + 1
	local t0 = now()
	compute(100000 + (n * 7919) % 200000)
	local t1 = now()
	block(1 + n % 5)
	local t2 = now()
	truth:incr(pid .. ":compute", t1 - t0, 0)
	truth:incr(pid .. ":block", t2 - t1, 0)
	ngx.say(x)
end

function M.truth()
	local truth, pid = ngx.shared.truth, ngx.var.arg_pid
	ngx.say(string.format("%.6f %.6f", truth:get(pid .. ":compute") or 0,
		truth:get(pid .. ":block") or 0))
end

return M
-- SPDX-License-Identifier: MIT
