-- Feeds offcpu.lua's FIFO: one line every 40 ms, until the reader goes.
-- Usage: offcpu_feed.lua FIFO
local ffi = require("ffi")
ffi.cdef[[int usleep(unsigned usec);]]
local out = assert(io.open(assert(arg[1], "FIFO"), "w"))
out:setvbuf("no")
while out:write("tick\n") do
  ffi.C.usleep(40000)
end
