#!/bin/bash
# SPDX-License-Identifier: MIT
# The node agent's own cost: `luabpfprof -a --continuous` at 99 Hz with 20
# LuaJIT processes, as % of one core, against the issue's 1% target.  The
# baseline in the same run is the same agent with no LuaJIT process at all.
# Prints a markdown section on stdout (bench/run.sh appends it).
#   bench/agent.sh [SECONDS] [PROCESSES]
set -u
cd "$(dirname "$0")/.."
SECS=${1:-20}
NPROC=${2:-20}
PROF=${PROF:-./luabpfprof}
LUAJIT=${LUAJIT:-tests/bin/luajit}	# .deps/luajit-deb, never an installed one
WORK=$(mktemp -d /tmp/lbp-agent.XXXXXX)
pids=()

cleanup() {
	kill "${pids[@]}" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT

# cpu_ms PID: user + system CPU of PID so far, in ms.
cpu_ms() {
	awk -v hz="$(getconf CLK_TCK)" '{ print ($14 + $15) * 1000 / hz }' "/proc/$1/stat"
}

# agent_cpu: % of one core the agent used over SECS, after a 5 s settle.
agent_cpu() {
	"$PROF" -a --continuous --every 5s -F 99 --out-dir "$WORK/out.$1" 2>"$WORK/agent.$1.err" &
	local agent=$! a b
	sleep 5
	a=$(cpu_ms "$agent")
	sleep "$SECS"
	b=$(cpu_ms "$agent")
	kill -TERM "$agent"
	wait "$agent" 2>/dev/null
	awk -v a="$a" -v b="$b" -v s="$SECS" 'BEGIN { printf "%.2f\n", (b - a) / (s * 10) }'
}

idle=$(agent_cpu idle)
# 20 paced processes: 10 ms of Lua work in every 100 ms (a busy node, not a
# saturated one: 20 CPU-bound processes would not fit on two cores).
for ((i = 0; i < NPROC; i++)); do
	"$LUAJIT" tests/workloads/duty.lua 10 90 3600 - >/dev/null 2>&1 &
	pids+=($!)
done
sleep 2
busy=$(agent_cpu busy)
files=$(find "$WORK/out.busy" -name '*.pb.gz' | wc -l)

cat <<EOF

## 6. The agent's own CPU with $NPROC LuaJIT processes

\`luabpfprof -a --continuous --every 5s -F 99 --out-dir DIR\` over ${SECS} s, after a
5 s settle, as % of one CPU (user + system time of the agent from /proc).
Baseline in the same run: the same agent with no LuaJIT process running.
The $NPROC processes run \`tests/workloads/duty.lua\` (10 ms of Lua in every 100 ms).

| agent | CPU, % of one core | target |
|---|---|---|
| no LuaJIT process (baseline) | ${idle}% | |
| $NPROC LuaJIT processes | ${busy}% | ≤ 1%: $(awk -v b="$busy" 'BEGIN { print (b <= 1 ? "met" : "MISSED") }') |

Profiles written during the busy window: $files.
EOF
