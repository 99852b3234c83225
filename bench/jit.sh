#!/bin/bash
# SPDX-License-Identifier: MIT
# The cost of --jit (bench/RESULTS.md figure 9): its polls of the JIT state
# (jit_State, the penalty cache; src/lj_jit.h) in luabpfprof, the bytes they
# copy from the target, and the target's slowdown against a same-run
# baseline.  One target process (bench/workloads/tables.lua, windows of T s
# of wall time, bench/workloads/common.lua) serves every window; each
# repetition runs a window with no profiler, one under `luabpfprof` and one
# under `luabpfprof --jit`, in an order rotated by repetition.  Throughput
# is rounds per CPU second of the target.  Prints a markdown section.
#   bench/jit.sh [REPS] [T]
set -u
cd "$(dirname "$0")/.."
source bench/lib.sh
REPS=${1:-5}
T=${2:-1}
PROF=${PROF:-./luabpfprof}
LUAJIT=${LUAJIT:-tests/bin/luajit}	# .deps/luajit-deb, never an installed one
WORK=$(mktemp -d /tmp/lbp-jitbench.XXXXXX)
pids=()

cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT

# attach PID [--jit]: starts a CPU profile of PID; returns once it samples.
attach() {
	local pid=$1
	shift
	prof_start 'sampling at' "$@" -o "$WORK/prof.txt" -p "$pid"
}

# detach NAME: stops the profiler, first noting its CPU time (user + system
# clock ticks, /proc/PID/stat) into NAME.cpu.
detach() {
	awk -v hz="$(getconf CLK_TCK)" '{ printf "%.3f\n", ($14 + $15) / hz }' \
		"/proc/$PROFPID/stat" >> "$WORK/$1.cpu"
	kill -INT "$PROFPID" 2>/dev/null
	wait "$PROFPID" 2>/dev/null
}

workload_start tables || exit 1

# window NAME: one window; its throughput goes to NAME.
window() { workload_window >> "$WORK/$1"; }

run() {
	case $1 in
	base) window base ;;
	prof) attach "$TPID" && { window prof; detach prof; } ;;
	jit) attach "$TPID" --jit && {
		window jit
		detach jit
		grep '^(.* polls of the JIT state' "$WORK/prof.txt" >> "$WORK/jit.polls"
	} ;;
	esac
}

order=(base prof jit)
for ((i = 0; i < REPS; i++)); do
	for ((k = 0; k < 3; k++)); do run "${order[(i + k) % 3]}"; done
done
echo quit >&3
exec 3>&-

# The polls line: "(N polls of the JIT state, F unreadable; U us and B bytes
# read per poll; at the end M ms, K KB)".
field() { sed -n "s/^(\([0-9]*\) polls of the JIT state, [0-9]* unreadable; \([0-9.]*\) us and \([0-9.]*\) bytes read per poll; at the end \([0-9.]*\) ms, \([0-9.]*\) KB)$/\\$1/p" "$WORK/jit.polls"; }
tb=$(median < "$WORK/base"); tp=$(median < "$WORK/prof"); tj=$(median < "$WORK/jit")
# change NEW OLD: the throughput change, negative when slower.
change() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.1f%%", 100 * (a / b - 1) }'; }
cpu_p=$(median < "$WORK/prof.cpu"); cpu_j=$(median < "$WORK/jit.cpu")
cat <<EOT

## 9. --jit: the cost of reading the JIT state

\`luabpfprof --jit\` polls each target's jit_State (state, last abort, the 64-slot penalty
cache: src/lj_jit.h) at every session tick with process_vm_readv, and reads the traces, their
snapshots and machine code and the blacklisted bytecode once at the end. No probe is placed:
the target is never stopped or trapped. Target: bench/workloads/tables.lua (figure 1), one
process, $REPS repetitions of ${T} s windows with no profiler, \`luabpfprof\` and
\`luabpfprof --jit\` (99 Hz both), order rotated; median (min … max). \`bench/jit.sh\`
reproduces it.

| figure | value |
|---|---|
| target throughput, no profiler (rounds per CPU s) | $tb ($(range < "$WORK/base")) |
| … under \`luabpfprof\` | $tp ($(range < "$WORK/prof")): $(change "$tp" "$tb") against none |
| … under \`luabpfprof --jit\` | $tj ($(range < "$WORK/jit")): $(change "$tj" "$tp") against \`luabpfprof\` alone |
| luabpfprof's time per poll | $(field 2 | median) µs ($(field 2 | range)) |
| bytes copied from the target per poll | $(field 3 | median) |
| polls per window | $(field 1 | median) |
| the reading at the end: time, bytes | $(field 4 | median) ms, $(field 5 | median) KB |
| luabpfprof's CPU per run, attach to stop (mostly attaching), without / with --jit | ${cpu_p} s / ${cpu_j} s |

A poll costs the target nothing but the copy of about $(field 3 | median) bytes, which the
kernel does in luabpfprof's context; any change under --jit is within the windows' noise
(min … max above). Why no uprobes: the penalty cache keeps the start, reason and back-off of the last 64
aborted root traces, so polls at the tick rate miss none unless more than 64 distinct starts
abort between two polls; what a poll can miss is the message argument and the "at" line of
an abort that is not the latest one, and side-trace aborts, which leave no record (their
error code lives only on the Lua stack during trace_abort). A uprobe on lj_trace_err or
trace_abort would catch those, but both are internal (hidden) functions with no symbol in
stripped builds (Debian's, OpenResty's), and we found no landmark to locate them from
outside the way the interpreter is found. Aborts are rare events, so such a probe would be
cheap if it could be placed (figure 8 shows the cost of a uprobe on a frequent call).

Runs: none: $(tr '\n' ' ' < "$WORK/base"); luabpfprof: $(tr '\n' ' ' < "$WORK/prof"); --jit: $(tr '\n' ' ' < "$WORK/jit").
EOT
