-- pcall.lua [SECONDS]: hot code reached through pcall, xpcall and an
-- __index metamethod, CPU split 3:2:1 (same body, 3:2:1 iterations):
--   protected   50%  pcall(protected, ...)        f/F: pcall.lua:15
--   handled     33%  xpcall(handled, on_error, ...) f/F: pcall.lua:19
--   __index     17%  proxy[n] -> __index(t, n)   f: __index, F: pcall.lua:__index
-- Functions called by pcall/xpcall have no name for jit.p (their caller
-- is a builtin), so it prints chunk:firstline.  Each round also throws
-- and catches one error (the unwinding path), which costs next to nothing.
-- Runs until killed, or for SECONDS of CPU time.

local function on_error(msg)
	return "caught: " .. tostring(msg)
end

local function protected(n, x)
	for i = 1, n do x = (x * 1664525 + 1013904223) % 4294967296 end
	return x
end
local function handled(n, x)
	for i = 1, n do x = (x * 1664525 + 1013904223) % 4294967296 end
	return x
end

local proxy = setmetatable({}, { __index = function(t, n)
	local x = rawget(t, "x") or 1
	for i = 1, n do x = (x * 1664525 + 1013904223) % 4294967296 end
	return x
end })

local secs = tonumber(arg and arg[1])
local K = 200000
local x, ok = 1, nil
while not secs or os.clock() < secs do
	-- A round of random length (the split within it is exact): fixed
	-- rounds alias with a fixed sampling period.
	local k = K * (0.5 + math.random())
	ok, x = pcall(protected, 3 * k, x)
	ok, x = xpcall(handled, on_error, 2 * k, x)
	rawset(proxy, "x", x)
	x = proxy[k]
	ok = pcall(error, "boom") -- one unwind per round
	assert(not ok)
end
return x
-- SPDX-License-Identifier: MIT
