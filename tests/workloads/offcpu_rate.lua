-- Off-CPU sampling's ground truth: many short blocks, alternately in
-- short() (FFI usleep of 100 us) and long() (300 us), thousands a second,
-- each timed here with CLOCK_MONOTONIC.  At the end "truth PART SECONDS"
-- and "blocks PART N" lines go to stdout.
-- Usage: offcpu_rate.lua SECONDS
local ffi = require("ffi")
ffi.cdef[[
struct lbp_ts { long sec, nsec; };
int clock_gettime(int clk, struct lbp_ts *ts);
int usleep(unsigned usec);
]]
local ts = ffi.new("struct lbp_ts")
local function now()
  ffi.C.clock_gettime(1, ts)	-- CLOCK_MONOTONIC
  return tonumber(ts.sec) + tonumber(ts.nsec) * 1e-9
end

local function short() ffi.C.usleep(100) end
local function long() ffi.C.usleep(300) end

local secs = tonumber(arg[1]) or 3
local spent = { short = 0, long = 0 }
local n = 0
local start = now()
local t0, t1 = start
while t0 - start < secs do
  short()
  t1 = now(); spent.short = spent.short + (t1 - t0)
  long()
  t0 = now(); spent.long = spent.long + (t0 - t1)
  n = n + 1
end
print(string.format("truth short %.6f", spent.short))
print(string.format("truth long %.6f", spent.long))
print(string.format("blocks short %d", n))
print(string.format("blocks long %d", n))
-- SPDX-License-Identifier: MIT
