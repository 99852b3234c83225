-- Blocks twice: first until a line comes on FIFO (before the profiler is
-- there), then 30 s in sleepy() (FFI usleep), past the end of the run.
-- Usage: offcpu_late.lua FIFO
local ffi = require("ffi")
ffi.cdef[[int usleep(unsigned usec);]]
local f = assert(io.open(assert(arg[1], "FIFO"), "r+"))
f:read("*l")
local function sleepy()
  ffi.C.usleep(30000000)
end
sleepy()
-- SPDX-License-Identifier: MIT
