-- Off-CPU ground truth with the JIT on: rounds of random length alternate
-- CPU work in burn() with naps(), a loop of FFI usleep calls.  Both loops
-- are hot and get compiled, so the blocks happen in C called from a trace
-- whose base frame is naps() itself.  Each part is timed with
-- CLOCK_MONOTONIC; at the end "truth PART SECONDS" lines go to stdout.
-- Usage: offcpu_jit.lua SECONDS
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

local secs = tonumber(arg[1]) or 3
math.randomseed(os.time() + tonumber(tostring({}):match("0x(%x+)"), 16) % 1000)

local x = 0
local function burn(ms)
  local stop = now() + ms / 1000
  repeat
    for i = 1, 2000 do x = (x * 31 + i) % 1000003 end
  until now() >= stop
end

local function naps(n)
  for i = 1, n do C.usleep(200 + (i * 7919) % 800) end
end

local spent = { burn = 0, naps = 0 }
local start = now()
local t0, t1 = start
while t0 - start < secs do
  burn(2 + math.random() * 18)
  t1 = now(); spent.burn = spent.burn + (t1 - t0)
  naps(math.random(3, 20))
  t0 = now(); spent.naps = spent.naps + (t0 - t1)
end
local total = now() - start
for _, k in ipairs({ "burn", "naps" }) do
  print(string.format("truth %s %.6f", k, spent[k]))
end
print(string.format("truth total %.6f", total))
-- SPDX-License-Identifier: MIT
