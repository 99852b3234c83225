-- For tests/t_jit_health.sh: closure creation (FNEW, a bytecode the JIT
-- does not compile) in a hot loop, run by an nginx handler per request.
local _M = {}
function _M.work(n)
  local s = 0
  for i = 1, n do
    local f = function() return i end
    s = s + f()
  end
  return s
end
function _M.handler()
  ngx.say(_M.work(20000))
end
return _M
