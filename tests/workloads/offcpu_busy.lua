-- Never blocks: pinned with another copy to one CPU, it is runnable but
-- waiting for the CPU about half the time.  At the end prints the truth:
-- "truth wall SECONDS" (CLOCK_MONOTONIC) and "truth cpu SECONDS" (its own
-- CPU time, CLOCK_THREAD_CPUTIME_ID); wall - cpu is the time it waited.
-- Usage: offcpu_busy.lua SECONDS
local ffi = require("ffi")
ffi.cdef[[
struct lbp_ts { long sec, nsec; };
int clock_gettime(int clk, struct lbp_ts *ts);
]]
local ts = ffi.new("struct lbp_ts")
local function clock(id)
  ffi.C.clock_gettime(id, ts)
  return tonumber(ts.sec) + tonumber(ts.nsec) * 1e-9
end
local MONOTONIC, THREAD_CPUTIME = 1, 3

local x = 0
local function spin()
  for i = 1, 100000 do x = (x * 31 + i) % 1000003 end
end

local secs = tonumber(arg[1]) or 3
local w0, c0 = clock(MONOTONIC), clock(THREAD_CPUTIME)
while clock(MONOTONIC) - w0 < secs do spin() end
print(string.format("truth wall %.6f", clock(MONOTONIC) - w0))
print(string.format("truth cpu %.6f", clock(THREAD_CPUTIME) - c0))
-- SPDX-License-Identifier: MIT
