-- tests/hosts/classhost's ground truth: C methods only the registry's
-- metatables hold (demo{obj}.spin_a, demo{obj}.spin_b, gadget.__index),
-- called for SECONDS of wall time (not CPU time as elsewhere: the test
-- profiles a fixed window, whatever CPU a loaded machine leaves); then the CPU seconds the process measured in each,
-- on one line: "truth spin_a spin_b gadget total" (total: the process's
-- CPU time in the loop).
local seconds = tonumber(arg and arg[1] or ...) or 5
local obj, gadget = new_obj(), new_gadget()

-- luakit's webview.lua wraps the class's C __index in a Lua closure that
-- calls it; only the closure's upvalue holds the C function then.
local mt = debug.getmetatable(gadget)
local oi = mt.__index
mt.__index = function(g, k)
	return oi(g, k)
end

local t0, c0 = os.time(), os.clock()
local sink = 0
while os.time() - t0 < seconds do
	for _ = 1, 20 do
		sink = sink + obj:spin_a(40000) + obj:spin_b(20000) + gadget.weight
	end
end
local a, b, g = classhost_truth()
io.write(string.format("truth %.4f %.4f %.4f %.4f %d\n", a, b, g, os.clock() - c0, sink % 2))
io.flush()
-- SPDX-License-Identifier: MIT
