-- dump's ground truth (tests/t_dump.sh): coroutines suspended at known
-- frames and lines, written by the program itself with debug.getinfo on
-- the very line that yields (or blocks), so the truth holds by
-- construction.  Usage: dump_coros.lua TRUTH FIFO [N]
--   N coroutines suspended two or three calls deep, with known locals;
--   N/4 pairs nested (the outer one resumed the inner one, which yielded
--   back, then yielded itself); N/5 created and never resumed; a few dead;
--   then main -> outer -> inner: inner blocks in io.open(FIFO) (a FIFO no
--   one writes to), so main and outer are "normal", inner is "running".
-- TRUTH lines: T addr status not_started firstline | F addr name line
-- (Lua frames, top first; name "?" when getinfo has none) | L addr name
-- value.  "ready" is written to TRUTH..".ready" once TRUTH is complete.
local truth_path, fifo, n = arg[1], arg[2], tonumber(arg[3] or 120)
local lines = {}

-- The main thread has no coroutine object in Lua 5.1: it is "main".
local function addr(co) return co and (tostring(co):gsub("^thread: ", "")) or "main" end

-- The Lua frames of the calling coroutine, from the caller of record up.
local function record(co, status)
	lines[#lines + 1] = ("T %s %s 0 0"):format(addr(co), status)
	local level = 2
	while true do
		local info = debug.getinfo(level, "nSl")
		if not info then break end
		if info.what ~= "C" then
			lines[#lines + 1] = ("F %s %s %d"):format(addr(co), info.name or "?", info.currentline)
		end
		level = level + 1
	end
end

local function keep_locals(co, ...)
	local t = { ... }
	for i = 1, #t, 2 do lines[#lines + 1] = ("L %s %s %s"):format(addr(co), t[i], t[i + 1]) end
end

local function leaf(i)
	local count = i * 3
	local label = "coroutine number " .. i
	local flag = i % 2 == 0
	local items = { 10, 20, 30, i }
	local co = coroutine.running()
	keep_locals(co, "count", tostring(count), "label", '"' .. label .. '"', "flag", tostring(flag),
		"items", "(4 entries)")
	record(co, "suspended"); coroutine.yield(count)
	return label, items, flag
end

local function middle(i)
	local depth = 2
	if i % 3 == 0 then return (leaf(i)) end
	local r = leaf(i)
	return r, depth
end

local function top(i)
	local ok = middle(i)
	return ok
end

local all = {}
for i = 1, n do
	local co = coroutine.create(top)
	assert(coroutine.resume(co, i))
	all[#all + 1] = co
end

-- Nested: outer resumes inner, inner yields back, outer yields.
local function inner_body()
	local inner_local = 7
	record(coroutine.running(), "suspended"); coroutine.yield(inner_local)
end
local function outer_body()
	local child = coroutine.create(inner_body)
	all[#all + 1] = child
	assert(coroutine.resume(child))
	record(coroutine.running(), "suspended"); coroutine.yield()
end
for _ = 1, math.floor(n / 4) do
	local co = coroutine.create(outer_body)
	assert(coroutine.resume(co))
	all[#all + 1] = co
end

-- Never resumed.
local function never_a() return 1 end
local function never_b(x)
	return x + 1
end
for i = 1, math.floor(n / 5) do
	local f = i % 2 == 0 and never_a or never_b
	local co = coroutine.create(f)
	lines[#lines + 1] = ("T %s suspended 1 %d"):format(addr(co), debug.getinfo(f, "S").linedefined)
	all[#all + 1] = co
end

-- Dead: returned.
for _ = 1, 3 do
	local co = coroutine.create(function() return 1 end)
	coroutine.resume(co)
	all[#all + 1] = co
end

local function write_truth()
	local f = assert(io.open(truth_path, "w"))
	f:write(table.concat(lines, "\n"), "\n")
	f:close()
	f = assert(io.open(truth_path .. ".ready", "w"))
	f:write("ready\n")
	f:close()
end

-- The running chain: main -> outer -> inner, inner blocked in io.open.
local function blocked_inner()
	local waiting_for = fifo
	record(coroutine.running(), "running"); write_truth(); local h = io.open(waiting_for, "r")
	return h
end
local function blocked_outer()
	local chain = coroutine.create(blocked_inner)
	all[#all + 1] = chain
	record(coroutine.running(), "normal"); coroutine.resume(chain)
end
local chain = coroutine.create(blocked_outer)
all[#all + 1] = chain
record(coroutine.running(), "normal"); coroutine.resume(chain)
-- SPDX-License-Identifier: MIT
