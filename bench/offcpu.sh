#!/bin/bash
# SPDX-License-Identifier: MIT
# The off-CPU mode's cost (-e off-cpu): the sched_switch program runs on
# every context switch of the host.  Two figures, as a markdown section on
# stdout (bench/run.sh appends it):
#  - throughput lost by a context-switch-heavy target: two LuaJIT processes
#    passing a byte over two FIFOs (bench/workloads/pingpong.lua), both
#    pinned to one CPU, profiled with -e off-cpu; each profiled window is
#    compared with the mean of the baseline windows before and after it;
#  - the program's cost per invocation from bpf_stats: the early exit
#    (luabpfprof on an idle LuaJIT process while the untraced ping-pong
#    switches), and per switch of a traced thread (the walk and the
#    bookkeeping), both with the walker's default depth of this workload.
#   [OFFCPU_OPTS="--off-cpu-rate 1"] bench/offcpu.sh [REPS] [WINDOW_SECONDS]
# OFFCPU_OPTS: profiler options (default: none, the automatic rate);
# OFFCPU_FIG: the section's number (default 7); OFFCPU_TARGET: the loss allowed, % (3).
set -u
cd "$(dirname "$0")/.." || exit 1
TOP=$PWD
source bench/lib.sh
REPS=${1:-5}
WIN=${2:-1.5}
PROF=${PROF:-$TOP/luabpfprof}
LUAJIT=${LUAJIT:-$TOP/tests/bin/luajit}	# .deps/luajit-deb, never an installed one
TCPU=${TCPU:-1}
OCPU=${OCPU:-0}
WORK=$(mktemp -d /tmp/lbp-offcpu.XXXXXX)
STATS_WAS=$(cat /proc/sys/kernel/bpf_stats_enabled)
pids=()

cleanup() {
	kill "${pids[@]}" 2>/dev/null
	wait 2>/dev/null
	echo "$STATS_WAS" > /proc/sys/kernel/bpf_stats_enabled
	rm -rf "$WORK"
}
trap cleanup EXIT

# pingpong NAME: starts a pinned pair; PING and PONG are their pids.
pingpong() {
	mkfifo "$WORK/$1.a" "$WORK/$1.b"
	taskset -c "$TCPU" "$LUAJIT" bench/workloads/pingpong.lua pong "$WORK/$1.a" "$WORK/$1.b" &
	PONG=$!
	taskset -c "$TCPU" "$LUAJIT" bench/workloads/pingpong.lua ping "$WORK/$1.a" "$WORK/$1.b" \
		"$WORK/$1.log" &
	PING=$!
	pids+=("$PING" "$PONG")
	sleep 1
}

# rate LOG SECONDS: round trips per second over the next SECONDS.
rate() {
	local a b
	a=$(tail -n 1 "$1")
	sleep "$2"
	b=$(tail -n 1 "$1")
	echo "$a $b" | awk '{ printf "%.1f\n", ($4 - $2) / ($3 - $1) }'
}

# attach PIDS: starts luabpfprof -e off-cpu on PIDS; waits until its
# program is attached; LBP is its pid, PROG the program's id.
attach() {
	local i
	# On the other CPU, as figure 1 runs the profilers' user-space work:
	# only the BPF program's cost lands on the target's CPU.
	# shellcheck disable=SC2086
	taskset -c "$OCPU" "$PROF" -e off-cpu ${OFFCPU_OPTS:-} -p "$1" -f folded -o "$WORK/lbp.folded" 2>>"$WORK/lbp.err" &
	LBP=$!
	pids+=("$LBP")
	for ((i = 0; i < 1000; i++)); do
		PROG=$(lbp_prog "$LBP" on_switch) && break
		kill -0 "$LBP" 2>/dev/null || return 1
		sleep 0.02
	done
	[ -n "${PROG:-}" ] || return 1
	sleep 0.3	# the targets' maps filled
}

detach() { kill -INT "$LBP"; wait "$LBP" 2>/dev/null; sleep 0.3; }

# stats_window PROG SECONDS: "ns_per_run runs_per_second".
stats_window() {
	local a b
	a=$(prog_stats "$1")
	sleep "$2"
	b=$(prog_stats "$1")
	echo "$a $b" | awk -v s="$2" '{ d = $4 - $2; printf "%.3f %.0f\n", d ? ($3 - $1) / d / 1000 : 0, d / s }'
}

# med3 LIST [FORMAT]: "median (min … max)" of numbers (default %+.2f).
med3() {
	tr ' ' '\n' <<< "$1" | grep . | sort -g | awk -v f="${2:-%+.2f}" '{ v[NR] = $1 } END {
		if (!NR) { print "n/a"; exit }
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf f " (" f " … " f ")\n", m, v[1], v[NR] }'
}
med3u() { med3 "$1" "${2:-%.2f}"; }

# 1. Throughput, bpf_stats off (it adds two clock reads to every run).
echo 0 > /proc/sys/kernel/bpf_stats_enabled
pingpong pp
slow="" base=""
for ((rep = 1; rep <= REPS; rep++)); do
	b1=$(rate "$WORK/pp.log" "$WIN")
	attach "$PING,$PONG" || { echo "luabpfprof did not attach: $(tail -n 2 "$WORK/lbp.err")" >&2; exit 1; }
	p=$(rate "$WORK/pp.log" "$WIN")
	detach
	b2=$(rate "$WORK/pp.log" "$WIN")
	slow+=" $(awk -v a="$b1" -v b="$b2" -v p="$p" 'BEGIN { printf "%.2f", 100 * (1 - p / ((a + b) / 2)) }')"
	base+=" $(awk -v a="$b1" -v b="$b2" 'BEGIN { printf "%.0f", (a + b) / 2 }')"
done

# 2. Cost per invocation, bpf_stats on: traced switches (the pair
# profiled), then early exits (an idle LuaJIT traced, the pair not).
echo 1 > /proc/sys/kernel/bpf_stats_enabled
traced="" early="" eruns=""
mkfifo "$WORK/idle.fifo"
exec 8<> "$WORK/idle.fifo"
"$LUAJIT" -e 'io.read()' < "$WORK/idle.fifo" 8>&- &
IDLE=$!
pids+=("$IDLE")
for ((rep = 1; rep <= REPS; rep++)); do
	attach "$PING,$PONG" && traced+=" $(stats_window "$PROG" "$WIN" | cut -d' ' -f1)"
	detach
	if attach "$IDLE"; then
		r=$(stats_window "$PROG" "$WIN")
		early+=" ${r% *}"
		eruns+=" ${r#* }"
	fi
	detach
done
exec 8>&-

cat <<EOT

## ${OFFCPU_FIG:-7}. Off-CPU mode (-e off-cpu${OFFCPU_OPTS:+ $OFFCPU_OPTS}): context-switch cost

\`bench/offcpu.sh\`, $REPS repetitions of ${WIN} s windows: median (min … max). The target is two
LuaJIT processes passing a byte back and forth over two FIFOs
(\`bench/workloads/pingpong.lua\`), both pinned to CPU $TCPU, so every round trip is two
context switches of traced threads, each walked on the way out and weighed on the way back.

| figure | value | target |
|---|---|---|
| ping-pong throughput lost under \`-e off-cpu\` (round trips per second; baseline median $(med3u "$base" %.0f | cut -d' ' -f1)) | $(med3 "$slow")% | ≤ ${OFFCPU_TARGET:-3}% |
| sched_switch program, traced switch (walk, park, weigh) | $(med3u "$traced") µs | – |
| sched_switch program, early exit (other processes) | $(med3u "$early") µs at $(med3u "$eruns" %.0f | cut -d' ' -f1) runs/s | as cheap as the CPU sampler's |
EOT
