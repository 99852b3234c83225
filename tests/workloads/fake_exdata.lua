-- Not nginx: a coroutine whose L->exdata (OpenResty's thread.exdata)
-- points at bytes that start with nginx's "HTTP" signature and nothing
-- else of a request.  tests/t_requests.sh: dump refuses the layout in one
-- line and lists the coroutines all the same.  Prints "ready", then spins.
local ffi = require "ffi"
local exdata = require "thread.exdata"

local fake = ffi.new("uint8_t[4096]")
ffi.copy(fake, "HTTP")

local function holder()
	exdata(fake)
	coroutine.yield()
end

local co = coroutine.create(holder)
coroutine.resume(co)
print("ready")
io.stdout:flush()
local x = 0
while true do x = x + 1 end
-- SPDX-License-Identifier: MIT
