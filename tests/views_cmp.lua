-- views_cmp.lua cmp NAME KIND MIN OURS N1 THEIRS N2 [keys]  (tests/t_views.sh)
--   KIND: top (percent), raw (r), graph (G), ann (a/A); MIN: the m<N>.
--   Prints one PASS or FAIL line.
-- views_cmp.lua tree NAME FILE: checks a --tree report's layout and sums, then
--   prints "path<TAB>total<TAB>self<TAB>samples" per row (path: labels
--   joined by " / ", @0x roots as @0x*).
local cmd = ...
local function lines(f)
	local t = {}
	local h = io.open(f)
	if not h then return t end
	for l in h:lines() do t[#t + 1] = l end
	h:close()
	return t
end
-- jit.p prints the host's C entry (luajit's pmain) as @0x...; ours, kept
-- with --keep-root for these comparisons, is named luajit+0x....
local function norm(k) return (k:gsub("@0x%x+", "@0x*"):gsub("luajit%+0x%x+", "@0x*")) end
local function fmt1(x) return string.format("%.0f", x) end
-- Points of share that jit.p's own biases may add to a key or line on top
-- of the sampling noise (safe-point sampling, the 250 Hz tick).
local BIAS = 10

-- A listing as entries { path, key, parent, share, n }: share in percent
-- (of the parent for nested lines), n the samples behind the parent.
local function parse_listing(t, kind, min, total)
	local out, top, sum, errs = {}, nil, 0, {}
	local last = {}
	for i, l in ipairs(t) do
		local e
		if kind == "graph" then
			local k, v = l:match("^(.-) (%d+)$")
			if not k or k == "" or k:find(" $") then
				errs[#errs + 1] = "line " .. i .. " [" .. l .. "]"
			else
				e = { key = norm(k), v = tonumber(v) }
			end
		else
			local ind, marker = "", nil
			if l:match("^  [<%-][%-%>] ") then
				marker = l:sub(3, 4)
				if marker ~= "<-" and marker ~= "->" and marker ~= "--" then marker = nil end
			end
			local rest = marker and l:sub(6) or l
			local v, k
			if kind == "raw" then
				v, k = rest:match("^ *(%d+)  (.+)$")
				if v and string.format("%5d  %s", tonumber(v), k) ~= rest then v = nil end
			else
				v, k = rest:match("^ ?(%d+)%%  (.+)$")
				if v and string.format("%2d%%  %s", tonumber(v), k) ~= rest then v = nil end
			end
			if not v then
				errs[#errs + 1] = "line " .. i .. " [" .. l .. "]"
			else
				e = { key = norm(k), v = tonumber(v), marker = marker }
			end
		end
		if e then
			local level = e.marker and 2 or 1
			if level == 2 and not top then
				errs[#errs + 1] = "nested line " .. i .. " without a parent"
			else
				-- jit.p lists by count, descending, and stops below m.
				if last[level] and e.v > last[level] then
					errs[#errs + 1] = "line " .. i .. " out of order"
				end
				last[level] = e.v
				if kind == "top" and e.v < min then
					errs[#errs + 1] = "line " .. i .. " below m" .. min
				end
				if level == 1 then
					top = e
					last[2] = nil
					e.path = e.key
					sum = sum + e.v
				else
					e.parent = top
					e.path = top.key .. "\t" .. e.marker .. " " .. e.key
					top.kids = (top.kids or 0) + e.v
				end
				out[#out + 1] = e
			end
		end
	end
	-- Shares: percentages as printed; counts against the printed sums (r,
	-- G: jit.p prints no total).
	for _, e in ipairs(out) do
		if kind == "top" then
			e.share = e.v
		elseif e.parent then
			e.share = e.v * 100 / e.parent.v
		else
			e.share = e.v * 100 / sum
		end
	end
	for _, e in ipairs(out) do
		e.n = e.parent and total * e.parent.share / 100 or total
	end
	return out, errs
end

-- The difference two binomial estimates of p may show, in points.
local function tolerance(p, na, nb)
	p = math.min(math.max(p, 1), 99) / 100
	na, nb = math.max(na, 1), math.max(nb, 1)
	local sigma = 100 * math.sqrt(p * (1 - p) * (1 / na + 1 / nb))
	return math.max(3, math.ceil(3.5 * sigma)) + 2
end

local function index(list)
	local m = {}
	for _, e in ipairs(list) do m[e.path] = e end
	return m
end

local function report(name, problems, ok)
	if #problems > 6 then
		local n = #problems
		for i = n, 7, -1 do problems[i] = nil end
		problems[7] = (n - 6) .. " more"
	end
	if #problems > 0 then
		print(string.format("FAIL: %s: %s", name, table.concat(problems, "; ")))
	else
		print(string.format("PASS: %s (%s)", name, ok))
	end
end

local function compare_listing(name, kind, min, ours, n1, theirs, n2, keysonly)
	local a, ea = parse_listing(lines(ours), kind, min, n1)
	local b, eb = parse_listing(lines(theirs), kind, min, n2)
	local problems = {}
	if #ea > 0 then problems[#problems + 1] = "ours unparsed: " .. table.concat(ea, ", ") end
	if #eb > 0 then problems[#problems + 1] = "jit.p unparsed: " .. table.concat(eb, ", ") end
	if #a == 0 then problems[#problems + 1] = "ours is empty" end
	if #b == 0 then problems[#problems + 1] = "jit.p's is empty" end
	local ia, ib = index(a), index(b)
	local matched, worst, summary = 0, "", {}
	-- A key that one report lacks: the other report's own sample count
	-- (behind the same parent) says how likely that is by chance.
	local function check(e, other, who, other_total)
		local o = other[e.path]
		if e.parent and not other[e.parent.path] then return end
		local on = e.parent and other_total * other[e.parent.path].share / 100 or other_total
		local cut = min + tolerance(e.share, e.n, on) + BIAS
		if keysonly then cut = math.max(15, cut) end
		if not o then
			if e.share >= cut then
				problems[#problems + 1] = string.format("%s only: %q %s%%", who,
					e.path, fmt1(e.share))
			end
		end
	end
	for _, e in ipairs(a) do check(e, ib, "ours", n2) end
	for _, e in ipairs(b) do check(e, ia, "jit.p", n1) end
	local maxd = -1
	for _, e in ipairs(a) do
		local o = ib[e.path]
		if o then
			matched = matched + 1
			if not e.parent and #summary < 6 then
				summary[#summary + 1] = string.format("%s %s/%s", e.key,
					fmt1(e.share), fmt1(o.share))
			end
			-- Shares are not compared: jit.p's own biases move them
			-- (see the top of t_views.sh); they are shown for reading.
			local d = math.abs(e.share - o.share)
			if not keysonly and d > maxd then
				maxd = d
				worst = string.format("; largest difference: %s %s/%s",
					e.key, fmt1(e.share), fmt1(o.share))
			end
		end
	end
	if matched == 0 then problems[#problems + 1] = "no key in common" end
	report(name, problems, string.format("%d keys, ours/jit.p: %s%s", matched,
		table.concat(summary, ", "), worst))
end

-- Annotations: files, then per file its hunks and lines.
local function parse_ann(t, whole)
	local files, order, cur, ln, errs = {}, {}, nil, nil, {}
	for i, l in ipairs(t) do
		local name = l:match("^====== (.+) ======$")
		if l == "" then
			if not (t[i + 1] or ""):match("^====== ") then
				errs[#errs + 1] = "stray blank line " .. i
			end
		elseif name then
			cur = { hunks = {}, lines = {}, name = name }
			files[name] = cur
			order[#order + 1] = name
			ln = whole and 1 or nil
		elseif l:match("^@@ %d+ @@$") and cur and not whole then
			ln = tonumber(l:match("%d+"))
			cur.hunks[#cur.hunks + 1] = ln
		elseif cur and ln then
			local v, text = l:match("^ ( *%d+)%% | (.*)$")
			if v and string.format(" %3d%% | %s", tonumber(v), text) ~= l then v = nil end
			if not v then text = l:match("^      | (.*)$") end
			if not text then
				errs[#errs + 1] = "line " .. i .. " [" .. l .. "]"
			else
				cur.lines[ln] = { text = text, v = v and tonumber(v) }
				ln = ln + 1
			end
		else
			errs[#errs + 1] = "line " .. i .. " [" .. l .. "]"
		end
	end
	return files, order, errs
end

local function compare_ann(name, whole, min, ours, n1, theirs, n2)
	local fa, oa, ea = parse_ann(lines(ours), whole)
	local fb, ob, eb = parse_ann(lines(theirs), whole)
	local problems, hot, hunks, summary = {}, 0, 0, {}
	if #ea > 0 then problems[#problems + 1] = "ours unparsed: " .. table.concat(ea, ", ") end
	if #eb > 0 then problems[#problems + 1] = "jit.p unparsed: " .. table.concat(eb, ", ") end
	if table.concat(oa, " ") ~= table.concat(ob, " ") then
		problems[#problems + 1] = "files: ours [" .. table.concat(oa, " ") ..
			"] jit.p [" .. table.concat(ob, " ") .. "]"
	end
	if #oa == 0 then problems[#problems + 1] = "no annotated file" end
	for _, f in ipairs(oa) do
		local a, b = fa[f], fb[f]
		if b then
			if table.concat(a.hunks, " ") ~= table.concat(b.hunks, " ") then
				problems[#problems + 1] = "hunks of " .. f .. ": ours @@ " ..
					table.concat(a.hunks, ",") .. " jit.p @@ " .. table.concat(b.hunks, ",")
			end
			hunks = hunks + #a.hunks
			local seen = {}
			for n in pairs(a.lines) do seen[n] = true end
			for n in pairs(b.lines) do seen[n] = true end
			local ns = {}
			for n in pairs(seen) do ns[#ns + 1] = n end
			table.sort(ns)
			for _, n in ipairs(ns) do
				local x, y = a.lines[n], b.lines[n]
				if not x or not y then
					problems[#problems + 1] = string.format("line %d shown by %s only",
						n, x and "ours" or "jit.p")
				elseif x.text ~= y.text then
					problems[#problems + 1] = string.format("line %d text differs", n)
				elseif x.v or y.v then
					local p = ((x.v or 0) + (y.v or 0)) / 2
					local tol = tolerance(p, n1, n2)
					if not (x.v and y.v) then
						if (x.v or y.v) >= min + tol + BIAS then
							problems[#problems + 1] = string.format(
								"line %d hot in %s only", n, x.v and "ours" or "jit.p")
						end
					else
						-- Shown, not compared (jit.p's bias).
						hot = hot + 1
						summary[#summary + 1] = string.format("%d:%d/%d", n, x.v, y.v)
					end
				end
			end
		end
	end
	if hot == 0 then problems[#problems + 1] = "no hot line in common" end
	report(name, problems, string.format("%d files, %d hunks, hot lines ours/jit.p: %s",
		#oa, hunks, table.concat(summary, " ")))
end

-- The call tree: "%6.1f%% %6.1f%% %9llu  <2 spaces per level><label>".
local function tree(name, file)
	local t = lines(file)
	local problems, rows, stack = {}, {}, {}
	if t[1] ~= "  total    self   samples  function" then
		problems[#problems + 1] = "header [" .. tostring(t[1]) .. "]"
	end
	for i = 2, #t do
		local l = t[i]
		local tot, self, n, ind, label = l:match("^ *(%d+%.%d)%% +(%d+%.%d)%% +(%d+)  ( *)(%S.*)$")
		if not tot or string.format("%6.1f%% %6.1f%% %9d  %s%s", tonumber(tot),
				tonumber(self), tonumber(n), ind, label) ~= l or #ind % 2 == 1 then
			problems[#problems + 1] = "line " .. i .. " [" .. l .. "]"
		else
			local level = #ind / 2 + 1
			if level > #stack + 1 then
				problems[#problems + 1] = "line " .. i .. " skips a level"
				level = #stack + 1
			end
			for j = #stack, level, -1 do stack[j] = nil end
			local row = { total = tonumber(tot), self = tonumber(self), n = tonumber(n),
				kids = 0, label = norm(label), parent = stack[level - 1], line = i }
			if row.parent then row.parent.kids = row.parent.kids + row.total end
			stack[level] = row
			local p, names = row, {}
			while p do table.insert(names, 1, p.label); p = p.parent end
			row.path = table.concat(names, " / ")
			rows[#rows + 1] = row
		end
	end
	-- A node's total covers its own samples and its callees'.
	for _, r in ipairs(rows) do
		if r.self + r.kids > r.total + 0.05 * (2 + r.kids) then
			problems[#problems + 1] = string.format("%s: self %.1f + callees %.1f > total %.1f",
				r.path, r.self, r.kids, r.total)
		end
	end
	report(name, problems, #rows .. " rows")
	for _, r in ipairs(rows) do
		io.stderr:write(string.format("%s\t%.1f\t%.1f\t%d\t%d\n", r.path, r.total,
			r.self, r.n, r.line))
	end
end

if cmd == "cmp" then
	local _, name, kind, min, ours, n1, theirs, n2, keys = ...
	min, n1, n2 = tonumber(min), tonumber(n1) or 0, tonumber(n2) or 0
	if kind == "ann" or kind == "annA" then
		compare_ann(name, kind == "annA", min, ours, n1, theirs, n2)
	else
		compare_listing(name, kind, min, ours, n1, theirs, n2, keys == "keys")
	end
elseif cmd == "tree" then
	tree(select(2, ...), select(3, ...))
end
-- SPDX-License-Identifier: MIT
