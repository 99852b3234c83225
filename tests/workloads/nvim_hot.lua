-- nvim_hot.lua [SECONDS]: Lua run by Neovim (`nvim --headless -c 'luafile
-- nvim_hot.lua'`), whose VM lives in the nvim executable's libluajit.
-- CPU split 3:1 between hot_a and hot_b by construction (identical bodies,
-- iteration counts), for SECONDS of CPU time (default 5), then quits nvim.
-- jit.p keys: F: nvim_hot.lua:hot_a nvim_hot.lua:hot_b
local function hot_a(n, x) for i = 1, n do x = (x * 1664525 + 1013904223) % 4294967296 end return x end
local function hot_b(n, x) for i = 1, n do x = (x * 1664525 + 1013904223) % 4294967296 end return x end

local secs = tonumber(vim.env.NVIM_HOT_SECS) or 5
local K = 200000 -- one round (4 K iterations) is ~4 ms with the JIT on
local x = 1
local t0 = os.clock()
while os.clock() - t0 < secs do
	x = hot_a(3 * K, x)
	x = hot_b(K, x)
end
vim.g.nvim_hot_result = x
vim.cmd("qall!")
-- SPDX-License-Identifier: MIT
