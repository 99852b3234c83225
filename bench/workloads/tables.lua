-- tables.lua [SECONDS | bench T]: table- and string-heavy work, with a lot
-- of allocation (so the GC runs inside every phase) and library C calls.
-- A round is a fixed amount of work, about 4 ms, roughly 50/30/20 between
-- records (tables, table.sort with a Lua comparator), render
-- (string.format, concatenation, table.concat) and patterns (match, gsub,
-- upper, find).
-- Ground truth: measured around each phase with the process CPU clock and
-- reported by each window ("split" in common.lua); a sample belongs to the
-- phase function on its stack (the C functions a phase calls, and the sort
-- comparator, count for it).
-- phases: tables.lua:records tables.lua:render tables.lua:patterns
-- alias: tables.lua:19=tables.lua:records (the sort comparator, by_score)
-- Work unit: one round.
local B = dofile((arg[0]:match("^(.*/)") or "./") .. "common.lua")
local cpu = B.cpu
local format, concat, sort = string.format, table.concat, table.sort

local names = { "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta" }
local by_score = function(p, q) return p.score < q.score end

local function records(n)
	local units = 0
	for _ = 1, n do
		local list, index = {}, {}
		for i = 1, 64 do
			local r = { id = i, name = names[i % 8 + 1], score = (i * 7919) % 101, tags = {} }
			for t = 1, 4 do r.tags[t] = names[(i + t) % 8 + 1] end
			list[i] = r
			index[r.name .. i] = r
		end
		sort(list, by_score)
		local sum = 0
		for _, r in pairs(index) do sum = sum + r.score + #r.tags end
		units = units + 64 + (sum > 0 and 0 or 1)
	end
	return units
end

local function render(n)
	local units = 0
	for _ = 1, n do
		local out = {}
		for i = 1, 32 do
			out[i] = format("<tr><td>%d</td><td>%s</td><td>%.2f</td></tr>", i, names[i % 8 + 1], i / 3)
				.. "<!-- " .. i .. " -->"
		end
		local page = concat(out, "\n")
		units = units + 32 + (#page > 0 and 0 or 1)
	end
	return units
end

local text = {}
for i = 1, 32 do text[i] = format("key%d = value %s; weight=%d", i, names[i % 8 + 1], i * 3) end

local function patterns(n)
	local units = 0
	for _ = 1, n do
		for i = 1, 32 do
			local line = text[i]
			local k, v = line:match("^(%w+) = (%w+ %w+)")
			local s = line:gsub("%d+", "#"):upper()
			if line:find("weight=", 1, true) and k and v and #s > 0 then units = units + 1 end
		end
	end
	return units
end

local split = B.split
B.run(function()
	local t0 = cpu()
	records(58)
	local t1 = cpu()
	render(225)
	local t2 = cpu()
	patterns(55)
	local t3 = cpu()
	split["tables.lua:records"] = split["tables.lua:records"] + (t1 - t0)
	split["tables.lua:render"] = split["tables.lua:render"] + (t2 - t1)
	split["tables.lua:patterns"] = split["tables.lua:patterns"] + (t3 - t2)
	return 1
end)
-- SPDX-License-Identifier: MIT
