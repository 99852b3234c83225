-- dump's running thread (tests/t_dump.sh): the main thread spins forever
-- in spin(), called from the main chunk on the line marked CALL; with the
-- JIT on, the loop runs as a trace.  The loop writes "ready" to arg[1]
-- on its 1000th turn, from the loop's own line: wherever the thread is
-- when dumped (the trace, or the interpreter inside ready()), spin() is
-- at the line marked LOOP.
local function ready()
	local f = assert(io.open(arg[1], "w"))
	f:write("ready\n")
	f:close()
end
local function spin(n)
	local x, i = n, 0
	while true do i = i + 1; x = (x * 1103515245 + 12345) % 2147483648; if i == 1000 then ready() end end -- LOOP
end
spin(7) -- CALL
-- SPDX-License-Identifier: MIT
