-- budget.lua: CPU shares by construction for workloads split into phases
-- (vmstates.lua, cfuncs.lua), with no clock read inside a phase: os.clock
-- is a system call, C code of its own, that a truth giving a phase's time
-- to one function does not expect.  Each phase runs a planned number of
-- units of its work; the caller reads the clock between phases and
-- settles: what a phase got above or below its share in one round is made
-- up in the next, so over the run the split is exact.
-- Loaded with dofile next to its user:
--   local budget = dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "")
--                         .. "budget.lua")
--   local p = budget.phase(0.4, 1e-5)   -- share, first guess of a unit's cost
--   local n, want = budget.plan(p, ROUND); run(n); budget.settle(p, want, n, t)
local M = {}

function M.phase(share, per)
	return { share = share, per = per, owed = 0 }
end

-- Units of p for a round of `round` CPU seconds, and the seconds they
-- should take.
function M.plan(p, round)
	local want = p.share * round + p.owed
	return want > 0 and math.max(1, math.floor(want / p.per + 0.5)) or 0, want
end

-- p's n units took t seconds: what it is owed now, its cost per unit.
function M.settle(p, want, n, t)
	p.owed = want - t
	if n > 0 then p.per = 0.5 * p.per + 0.5 * t / n end
end

return M
-- SPDX-License-Identifier: MIT
