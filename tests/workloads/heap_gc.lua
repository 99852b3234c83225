-- GC pressure with a known culprit, for tests/t_heap.sh: churn() allocates
-- (tables and strings), light() allocates nothing and runs longer.  Every
-- GC step is taken inside an allocation, so all time the VM spends in the
-- collector belongs under churn's stacks.  Runs until killed.
local function churn(n)
	local t = {}
	for i = 1, n do t[i] = { i, tostring(i) } end
	return #t
end
local function light(n)
	local s = 0
	for i = 1, n do s = s + i % 7 end
	return s
end
print("ready")
io.stdout:flush()
while true do
	churn(20000)
	light(2000000)
end
-- SPDX-License-Identifier: MIT
