-- Workloads whose JIT fate is known (tests/t_jit_health.sh).  Usage:
--   jit_health.lua MODE SECONDS [COUNT_AT [STOPFILE]]
-- MODE picks the hot loop in work(); every work() lies above the driver
-- (the test tells their aborts from the driver's by that line).
-- At COUNT_AT seconds and at the end the number of live traces
-- (jit.util.traceinfo) is printed, to show profiling left them alone; the
-- run also ends early once STOPFILE exists.
local mode, secs, count_at = arg[1], tonumber(arg[2]) or 3, tonumber(arg[3])
local stopfile = arg[4]
local unpack = unpack or table.unpack
local jutil = require("jit.util")
local t3 = {1, 2, 3}

local work
if mode == "fnew" then        -- NYI bytecode: closure creation (FNEW)
  work = function(n)
    local s = 0
    for i = 1, n do
      local f = function() return i end
      s = s + f()
    end
    return s
  end
elseif mode == "nyiff" then   -- a builtin called with CALLM: not stitched
  work = function(n)
    local s = 0
    for i = 1, n do
      s = s + select('#', unpack(t3))
    end
    return s
  end
elseif mode == "stitch" then  -- a C function: the trace stitches around it
  work = function(n)
    local s = 0
    for i = 1, n do
      s = s + os.clock()
    end
    return s
  end
elseif mode == "leave" then   -- inner loops leaving the root trace
  work = function(n)
    local s = 0
    for i = 1, n do
      local t = {i, i}
      for _, v in ipairs(t) do
        s = s + v
        for q = 1, 2 do s = s + q end
      end
    end
    return s
  end
elseif mode == "side" then    -- a type-unstable branch: a hot side exit
  local vals = {1, 2, 3, "four"}
  work = function(n)
    local s = 0
    for i = 1, n do
      local v = vals[i % 4 + 1]
      if type(v) == "number" then s = s + v else s = s + #v end
    end
    return s
  end
else                          -- healthy: one loop trace, no abort
  work = function(n)
    local s = 0
    for i = 1, n do
      s = s + (i * i) % 7
    end
    return s
  end
end

-- The driver and the counter run interpreted (jit.off on each): no trace of
-- theirs comes or goes while the test watches, so only work() has traces.
local function traces()
  local n = 0
  for i = 1, 4000 do
    if jutil.traceinfo(i) then n = n + 1 end
  end
  return n
end

local function drive()
  local t0, counted = os.clock(), false
  while true do
    local now = os.clock() - t0
    if count_at and not counted and now >= count_at then
      io.write("traces ", traces(), "\n"); io.flush(); counted = true
    end
    if now >= secs then break end
    if stopfile and counted then
      local f = io.open(stopfile)
      if f then f:close(); break end
    end
    work(mode == "healthy" and 100000 or 2000)
  end
  if count_at then io.write("traces ", traces(), "\n") end
end
jit.off(traces)
jit.off(drive)
drive()
-- SPDX-License-Identifier: MIT
