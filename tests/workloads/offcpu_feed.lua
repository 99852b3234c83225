-- Feeds offcpu.lua's wait_pipe(): for each request line on FIFO.req,
-- sleeps 2 to 12 ms (FFI usleep) and answers a line on FIFO.resp, until
-- stopped.  Usage: offcpu_feed.lua FIFO
local ffi = require("ffi")
ffi.cdef[[int usleep(unsigned usec);]]
local path = assert(arg[1], "FIFO")
-- Read-write opens (as offcpu.lua's): neither side waits for the other.
-- The feeder then never sees an end of file: whoever started it stops it.
local req = assert(io.open(path .. ".req", "r+"))
local resp = assert(io.open(path .. ".resp", "r+"))
resp:setvbuf("no")
math.randomseed(os.time())
while req:read("*l") do
  ffi.C.usleep(2000 + math.floor(math.random() * 10000))
  if not resp:write("tick\n") then break end
end
-- SPDX-License-Identifier: MIT
