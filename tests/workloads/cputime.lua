-- cputime.lua OUT SCRIPT [ARGS...]: runs SCRIPT as luajit would run it as
-- the main program (arg[0] = SCRIPT, arg[1..] = ARGS), then writes this
-- process's CPU time (os.clock: user + system since the process started,
-- across its exec) to OUT.  That is the truth a profiler launching the
-- program with `-- COMMAND` is held to (tests/t_launch.sh): the samples
-- its CPU time allows at the chosen rate.
local out, script = arg[1], arg[2]
local args = {}
for i = 3, #arg do args[#args + 1] = arg[i] end
arg = { [0] = script, unpack(args) }
local main = assert(loadfile(script))
main(unpack(args))
local f = assert(io.open(out, "w"))
f:write(string.format("%.6f\n", os.clock()))
f:close()
-- SPDX-License-Identifier: MIT
