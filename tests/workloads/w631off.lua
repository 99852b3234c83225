-- w631off.lua [SECONDS]: w631.lua with the JIT switched off by the script
-- itself (jit.off() before any code runs hot), rather than by -joff.  Same
-- functions, same chunk (w631.lua), same keys and 6:3:1 split; every sample
-- is Interpreted.
jit.off()
local dir = arg and arg[0] and arg[0]:match("^(.*/)") or ""
return dofile(dir .. "w631.lua")
-- SPDX-License-Identifier: MIT
