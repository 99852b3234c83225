-- A heap known by construction, for tests/t_heap.sh.
-- Usage: heap_known.lua BUILD [N]: with BUILD 1 it adds, over BUILD 0,
--   tables    N records + app, cache, users + the coroutine's table + the cdata holder
--   strings   N names ("user1" ...) + one 10 MiB string
--   Lua functions 2 (a closure over the big string, the coroutine's body)
--   upvalues  1 (closed, holding the big string); threads 1; cdata 1000
-- then collects, prints "ready KB CACHE_KB" and blocks: KB is
-- collectgarbage("count"), CACHE_KB what building the records took, measured
-- in-process with the collector stopped (0 with BUILD 0).
local ffi = require("ffi")
ffi.cdef[[unsigned int sleep(unsigned int seconds);]]
local build, N = tonumber(arg[1]) == 1, tonumber(arg[2]) or 100000
local cache_kb = 0
-- The cache's table is also held by this local of the main chunk, live
-- while the program blocks: a path the report must name, after the global.
local users

local function make_holder(s)
	return function() return #s end
end

if build then
	app = { cache = { users = {} } }
	users = app.cache.users
	collectgarbage("stop")
	local before = collectgarbage("count")
	for i = 1, N do
		users[i] = { id = i, name = "user" .. i, score = i * 0.5 }
	end
	cache_kb = collectgarbage("count") - before
	collectgarbage("restart")
	big_holder = make_holder(string.rep("x", 10 * 1024 * 1024))
	worker = coroutine.create(function()
		local t = {}
		for i = 1, 50000 do t[i] = i end
		coroutine.yield()
		return t
	end)
	coroutine.resume(worker)
	vectors = {}
	for i = 1, 1000 do vectors[i] = ffi.new("double[16]") end
end
collectgarbage()
collectgarbage()
io.write(string.format("ready %.3f %.3f\n", collectgarbage("count"), cache_kb))
io.flush()
while true do ffi.C.sleep(100) end
-- SPDX-License-Identifier: MIT
