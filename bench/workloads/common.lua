-- common.lua: the run protocol shared by the bench workloads.  Loaded with
-- dofile() by each workload, which hands run() a round function: one round
-- does a fixed amount of work and returns how many work units it did.
--
--   luajit X.lua [SECONDS]     run until killed, or for SECONDS of CPU time
--   luajit X.lua bench T       throughput windows, for bench/run.sh:
--       warm up (0.3 s of CPU, at most 1 s of wall time: the JIT compiles
--       everything hot), print "ready", then serve commands read from
--       stdin, one per line, until "quit" or end of input:
--         go                 one window: rounds for T s of wall time;
--                            prints "result UNITS CPU_S WALL_S"
--         jp MODE FILE       the same with jit.p running in this process,
--                            as `luajit -jp=MODE,FILE` runs it: started
--                            before a short warm-up (0.15 s: starting and
--                            stopping it flushes the compiled traces),
--                            stopped after the window, which writes its
--                            report to FILE; the next window warms up too.
--                            The result ends with "jpcpu=S": the CPU time
--                            from start to stop, for jit.p's sample rate
--       Throughput is UNITS / CPU_S.  The process's CPU time includes
--       everything done in its context (timer interrupts, BPF programs,
--       signal handlers) and excludes the time other tenants of the
--       machine took from it; a window of fixed wall time keeps the run
--       short however loaded the machine is.
-- Timing is clock_gettime through the FFI: it costs the same in every
-- configuration and never appears in the hot functions' traces.
local ffi = require("ffi")
ffi.cdef [[
typedef struct { long tv_sec; long tv_nsec; } lbpb_timespec;
int clock_gettime(int clk, lbpb_timespec *ts);
]]
local ts = ffi.new("lbpb_timespec")
local CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID = 1, 2

local M = {}

-- M.split: CPU seconds per phase, which workloads with phases add to
-- (split[key] = split[key] + dt); reset for every window and reported with
-- its result as "KEY=PERCENT" fields.
M.split = setmetatable({}, { __index = function() return 0 end })

local function split_text()
	local keys, total, out = {}, 0, {}
	for k, v in pairs(M.split) do keys[#keys + 1] = k; total = total + v end
	table.sort(keys)
	for i, k in ipairs(keys) do
		out[i] = string.format(" %s=%.2f", k, total > 0 and 100 * M.split[k] / total or 0)
	end
	return table.concat(out)
end

function M.cpu()
	ffi.C.clock_gettime(CLOCK_PROCESS_CPUTIME_ID, ts)
	return tonumber(ts.tv_sec) + tonumber(ts.tv_nsec) * 1e-9
end

function M.wall()
	ffi.C.clock_gettime(CLOCK_MONOTONIC, ts)
	return tonumber(ts.tv_sec) + tonumber(ts.tv_nsec) * 1e-9
end

-- rounds(round, cpu_s, wall_s): runs rounds until either limit; returns
-- the units done and the CPU and wall time they took.
local function rounds(round, cpu_s, wall_s)
	local cpu, wall = M.cpu, M.wall
	local units, c0, w0 = 0, cpu(), wall()
	local cend, wend = c0 + cpu_s, w0 + wall_s
	local c, w = c0, w0
	repeat
		units = units + round()
		c, w = cpu(), wall()
	until c >= cend or w >= wend
	return units, c - c0, w - w0
end

function M.run(round)
	if arg[1] ~= "bench" then
		local secs, cpu = tonumber(arg[1]), M.cpu
		while not secs or cpu() < secs do round() end
		return
	end
	local T = tonumber(arg[2]) or 0.5
	rounds(round, 0.3, 1)
	io.stdout:write("ready\n")
	io.stdout:flush()
	local rewarm = false
	for line in io.stdin:lines() do
		local cmd, mode, file = line:match("^(%S+)%s*(%S*)%s*(%S*)")
		if cmd == "quit" then break end
		local P, jp0, jpcpu
		if cmd == "jp" then
			P = require("jit.p")
			jp0 = M.cpu()
			P.start(mode, file)
		end
		if P or rewarm then rounds(round, 0.15, 0.5) end
		rewarm = P ~= nil
		for k in pairs(M.split) do M.split[k] = nil end
		local units, c, w = rounds(round, 1e9, T)
		if P then
			P.stop()
			jpcpu = M.cpu() - jp0
			-- jit.p's previous run leaves a proxy whose finalizer stops
			-- whatever run is current when it is collected: collect it now.
			collectgarbage()
			collectgarbage()
		end
		io.stdout:write(string.format("result %.0f %.6f %.6f%s%s\n", units, c, w, split_text(),
			jpcpu and string.format(" jpcpu=%.6f", jpcpu) or ""))
		io.stdout:flush()
	end
end

return M
-- SPDX-License-Identifier: MIT
