-- A heap that never stands still, for tests/t_heap.sh: a cache whose
-- entries (tables, strings, closures, coroutines, cdata) are replaced at
-- random as fast as the VM can, so the GC frees and reuses memory under
-- any walker reading it from outside.  Runs until killed.
local ffi = require("ffi")
local cache, n, seed = {}, 4096, 1
local function rnd(m)
	seed = (seed * 1103515245 + 12345) % 2147483648
	return seed % m + 1
end
print("ready")
io.stdout:flush()
while true do
	local k, what = rnd(n), rnd(5)
	if what == 1 then
		cache[k] = { k, tostring(k) .. string.rep("y", rnd(200)), {} }
	elseif what == 2 then
		cache[k] = string.rep("z", rnd(5000)) .. k
	elseif what == 3 then
		local s = tostring(rnd(1e9))
		cache[k] = function() return s end
	elseif what == 4 then
		cache[k] = coroutine.create(function() coroutine.yield(k) end)
		coroutine.resume(cache[k])
	else
		cache[k] = ffi.new("char[?]", rnd(300))
	end
	if rnd(5000) == 1 then cache = {} end
end
-- SPDX-License-Identifier: MIT
