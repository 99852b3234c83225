-- For tests/t_jit_health.sh: a type-unstable branch (a hot side exit) in
-- a hot loop, and closure creation (FNEW, a bytecode the JIT does not
-- compile) in another, each run by an nginx handler per request (both
-- above the handlers: the test compares what starts above them); and the
-- number of live traces (jit.util.traceinfo), counted interpreted.
local _M = {}
local vals = {1, 2, 3, "four"}
function _M.side(n)
  local s = 0
  for i = 1, n do
    local v = vals[i % 4 + 1]
    if type(v) == "number" then s = s + v else s = s + #v end
  end
  return s
end
function _M.work(n)
  local s = 0
  for i = 1, n do
    local f = function() return i end
    s = s + f()
  end
  return s
end
-- The handlers.
function _M.handler()
  ngx.say(_M.work(20000))
end
function _M.side_handler()
  ngx.say(_M.side(200000))
end
function _M.traces()
  local jutil, n = require("jit.util"), 0
  for i = 1, 10000 do
    if jutil.traceinfo(i) then n = n + 1 end
  end
  ngx.say(n)
end
jit.off(_M.traces)
return _M
-- SPDX-License-Identifier: MIT
