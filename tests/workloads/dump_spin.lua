-- dump's running thread (tests/t_dump.sh): the main thread spins forever
-- in spin(), called from the main chunk on the line marked CALL; with the
-- JIT on, the loop runs as a trace.  Writes "ready" to arg[1] first.
local function spin(n)
	local x = n
	while true do -- LOOP
		x = (x * 1103515245 + 12345) % 2147483648
	end
end
local f = assert(io.open(arg[1], "w"))
f:write("ready\n")
f:close()
spin(7) -- CALL
