-- Off-CPU ground truth: rounds of random length alternate CPU work in
-- burn() with blocking in wait_pipe() (asks offcpu_feed.lua for a line and
-- reads it from a FIFO: the feeder answers 2 to 12 ms later), nap() (FFI
-- usleep) and shell() (os.execute("sleep 0.01")).
-- Each part is timed here with CLOCK_MONOTONIC; at the end the truth goes
-- to stdout as "truth PART SECONDS" lines and "truth total SECONDS".
-- Usage: offcpu.lua SECONDS FIFO
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

local secs = tonumber(arg[1]) or 5
local path = assert(arg[2], "FIFO")
-- Read-write opens of a FIFO never wait for the other side (Linux), so
-- nothing blocks before the clocks start.
local req = assert(io.open(path .. ".req", "r+"))
local fifo = assert(io.open(path .. ".resp", "r+"))
req:setvbuf("no")
math.randomseed(os.time() + tonumber(tostring({}):match("0x(%x+)"), 16) % 1000)

local x = 0
local function burn(ms)
  local stop = now() + ms / 1000
  -- The clock (an FFI C function of its own) is read once per 20000
  -- iterations: far under a point of burn's time, JIT on or off.
  repeat
    for i = 1, 20000 do x = (x * 31 + i) % 1000003 end
  until now() >= stop
end

local function wait_pipe()
  req:write("?\n")
  local line = fifo:read("*l")	-- not a tail call: wait_pipe stays on the stack
  return line
end

local function nap(ms)
  ffi.C.usleep(ms * 1000)
end

local function shell()
  os.execute("sleep 0.01")
end

local spent = { burn = 0, wait_pipe = 0, nap = 0, shell = 0 }
local start = now()
-- Direct calls, so that each part is named by its own call site.
local t0, t1 = start
while t0 - start < secs do
  burn(5 + math.random() * 25)
  t1 = now(); spent.burn = spent.burn + (t1 - t0)
  wait_pipe()
  t0 = now(); spent.wait_pipe = spent.wait_pipe + (t0 - t1)
  nap(2 + math.random() * 8)
  t1 = now(); spent.nap = spent.nap + (t1 - t0)
  if math.random() < 0.5 then shell() end
  t0 = now(); spent.shell = spent.shell + (t0 - t1)
end
local total = now() - start
for _, k in ipairs({ "burn", "wait_pipe", "nap", "shell" }) do
  print(string.format("truth %s %.6f", k, spent[k]))
end
print(string.format("truth total %.6f", total))
-- SPDX-License-Identifier: MIT
