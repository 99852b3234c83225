-- dump on a heap that churns (tests/t_dump.sh): coroutines are created,
-- suspended, resumed to their end and dropped, and tables built and
-- thrown away, as fast as the VM can, forever.  Writes "ready" to
-- arg[1] once the pool of 500 coroutines is full.
local pool, ready = {}, arg[1]
local function body(a)
	local t = { a, tostring(a), { a } }
	coroutine.yield(t)
	local deeper = coroutine.wrap(function(x) coroutine.yield(x) end)
	deeper(a)
	return a
end
local i = 0
while true do
	i = i + 1
	local co = coroutine.create(body)
	coroutine.resume(co, i)
	pool[i % 500 + 1] = co
	if i % 3 == 0 then
		local old = pool[(i * 7) % 500 + 1]
		if old then coroutine.resume(old) end
	end
	local junk = {}
	for j = 1, 10 do junk[j] = { j } end
	if i == 500 and ready then
		local f = assert(io.open(ready, "w"))
		f:write("ready\n")
		f:close()
	end
end
-- SPDX-License-Identifier: MIT
