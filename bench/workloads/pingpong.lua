-- Context-switch-heavy target for the off-CPU figure: two processes pass
-- one byte back and forth over two FIFOs, so each round trip blocks each
-- side once.  The ping side appends "REALTIME_S ROUND_TRIPS" to LOG about
-- every 50 ms.  Usage: pingpong.lua ping|pong FIFO_A FIFO_B [LOG]
local ffi = require("ffi")
ffi.cdef[[
struct lbp_ts { long sec, nsec; };
int clock_gettime(int clk, struct lbp_ts *ts);
]]
local ts = ffi.new("struct lbp_ts")
local function realtime()
  ffi.C.clock_gettime(0, ts)
  return tonumber(ts.sec) + tonumber(ts.nsec) * 1e-9
end

local role, a, b, logname = arg[1], arg[2], arg[3], arg[4]
if role == "ping" then
  local out = assert(io.open(a, "w"))	-- same open order as pong: no deadlock
  local inp = assert(io.open(b, "r"))
  local log = assert(io.open(logname, "w"))
  out:setvbuf("no")
  log:setvbuf("line")
  local n, next_log = 0, realtime() + 0.05
  while true do
    out:write("x")
    if not inp:read(1) then break end
    n = n + 1
    if n % 64 == 0 then
      local t = realtime()
      if t >= next_log then
        log:write(string.format("%.6f %d\n", t, n))
        next_log = t + 0.05
      end
    end
  end
else
  local inp = assert(io.open(a, "r"))
  local out = assert(io.open(b, "w"))
  out:setvbuf("no")
  while inp:read(1) do
    if not out:write("y") then break end
  end
end
-- SPDX-License-Identifier: MIT
