-- Runs one of LuaJIT's bench/ programs again and again, so that a program
-- that ends in a fraction of a second can still be profiled by PID for as
-- long as the measurement needs, with the JIT on or off.
-- Usage: luajit [-joff] repeat.lua SECONDS INPUT|- PROGRAM.lua [ARGS...]
-- INPUT, when not "-", is the file the program reads as its standard
-- input, reopened for every round.  The program's own output is its
-- business (the caller sends it to /dev/null).
local secs, input, script = tonumber(arg[1]), arg[2], arg[3]
local args = { [0] = script }
for i = 4, #arg do args[#args + 1] = arg[i] end
local chunk = assert(loadfile(script))
local deadline = os.time() + secs
repeat
	if input ~= "-" then io.input(input) end
	arg = args
	chunk(unpack(args))
until os.time() >= deadline
