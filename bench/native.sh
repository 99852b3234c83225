#!/bin/bash
# SPDX-License-Identifier: MIT
# The cost of --native (bench/RESULTS.md figure 10), next to
# `perf record --call-graph dwarf`, the reference for a stack-copying
# unwinder (issue 17).  One busy target process, bench/workloads/w631.lua
# on Debian's LuaJIT (windows of T s of wall time, the protocol of
# bench/workloads/common.lua), serves every window; each repetition runs,
# in an order rotated by repetition, a window with
#   - no profiler,
#   - luabpfprof at 99 and 999 Hz,
#   - luabpfprof --native at 99 and 999 Hz,
#   - perf record --call-graph dwarf -F HZ -p PID at 99 and 999 Hz
#     (writing perf.data in the work directory; its unwinding is done later,
#     by perf report or perf script, and is not counted here).
# Measured per window:
#   - the target's throughput, LCG steps per CPU second of the target (its
#     CPU time includes the BPF program or perf's kernel-side stack copy,
#     which run in its context), against the no-profiler windows;
#   - the profiler's own CPU time (schedstat, every thread) from the start
#     of the window to its end, as % of one core: luabpfprof's start-up
#     (loading, verifying BPF) and its final symbolization are outside the
#     window, the ring buffer's drains (every 200 ms: reading, unwinding,
#     naming native stacks) are inside.
# Prints a markdown section on stdout (bench/run.sh appends it).
#   bench/native.sh [REPS] [T]
set -u
cd "$(dirname "$0")/.." || exit 1
source bench/lib.sh
REPS=${1:-5}
T=${2:-2}
PROF=${PROF:-./luabpfprof}
LUAJIT=${LUAJIT:-tests/bin/luajit}	# .deps/luajit-deb, never an installed one
WORK=$(mktemp -d /tmp/lbp-nativebench.XXXXXX)
pids=()

STATS_WAS=$(cat /proc/sys/kernel/bpf_stats_enabled)
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	echo "$STATS_WAS" > /proc/sys/kernel/bpf_stats_enabled
	[ "${BENCH_KEEP:-0}" = 1 ] || rm -rf "$WORK"
}
trap cleanup EXIT
trap '' PIPE

HAVE_PERF=0
perf --version >/dev/null 2>&1 && HAVE_PERF=1
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)

# window: one window; prints its steps per CPU second.
window() { workload_window %.0f; }

# measured NAME PID: runs a window while PID (a profiler) is attached;
# appends the throughput to NAME and PID's CPU over the window (% of one
# core) to NAME.cpu.
measured() {
	local c0 c1 w0 w1
	c0=$(cpu_ns "$2"); w0=$(now)
	window >> "$WORK/$1"
	c1=$(cpu_ns "$2"); w1=$(now)
	echo "$1 $(tail -1 "$WORK/$1")" >> "$WORK/seq"
	awk -v c0="$c0" -v c1="$c1" -v w0="$w0" -v w1="$w1" \
		'BEGIN { if (c0 != "" && c1 != "") printf "%.3f\n", (c1 - c0) / 1e9 / (w1 - w0) * 100 }' \
		>> "$WORK/$1.cpu"
}

# stop NAME PID: stops profiler PID with SIGINT and appends its CPU time
# from start to exit (user + system, /proc/PID/stat read until it is gone:
# within 20 ms) to NAME.life.
stop() {
	local last="" t
	kill -INT "$2" 2>/dev/null
	while t=$(awk '{ print $14 + $15 }' "/proc/$2/stat" 2>/dev/null) && [ -n "$t" ]; do
		last=$t
		sleep 0.02
	done
	wait "$2" 2>/dev/null
	[ -n "$last" ] && awk -v t="$last" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f\n", t / hz }' >> "$WORK/$1.life"
}

# lbp NAME HZ [--native]: a window under luabpfprof.
lbp() {
	local name=$1 hz=$2
	shift 2
	local id map s0 s1 n0 n1
	prof_start 'sampling at' "$@" -F "$hz" -f folded -o "$WORK/prof.folded" -p "$TPID" || return
	id=$(lbp_prog "$PROFPID"); map=$(lbp_counters_map "$PROFPID")
	s0=$(prog_stats "$id"); n0=$(counter_sum "$map")
	measured "$name" "$PROFPID"
	s1=$(prog_stats "$id"); n1=$(counter_sum "$map")
	# The BPF program's time over the window (bpf_stats; its runs on other
	# processes exit early) per sample of the target, in µs.
	echo "$s0 $s1 $n0 $n1" | awk '$6 > $5 { printf "%.2f\n", ($3 - $1) / ($6 - $5) / 1000 }' >> "$WORK/$name.bpf"
	echo "$s0 $s1 $n0 $n1" >> "$WORK/$name.bpfraw"
	stop "$name" "$PROFPID"
	grep -E '^luabpfprof: ([0-9]+ samples in|native:)' "$WORK/prof.err" >> "$WORK/$name.log"
	cat "$WORK/prof.err" >> "$WORK/$name.err"
}

# perf_rec NAME HZ: a window under perf record --call-graph dwarf.
perf_rec() {
	local name=$1 hz=$2 pp
	perf record -q --call-graph dwarf -F "$hz" -p "$TPID" -o "$WORK/perf.data" \
		>/dev/null 2>"$WORK/perf.err" &
	pp=$!
	pids+=("$pp")
	if wait_attached "$pp" 1; then
		measured "$name" "$pp"
	else
		echo "native.sh: perf did not attach: $(tail -1 "$WORK/perf.err")" >&2
	fi
	stop "$name" "$pp"
	du -k "$WORK/perf.data" 2>/dev/null | cut -f1 >> "$WORK/$name.kb"
	rm -f "$WORK/perf.data"
}

run() {
	case $1 in
	base) window >> "$WORK/base"; echo "base $(tail -1 "$WORK/base")" >> "$WORK/seq" ;;
	p99) lbp p99 99 ;;
	p999) lbp p999 999 ;;
	n99) lbp n99 99 --native ;;
	n999) lbp n999 999 --native ;;
	perf99) perf_rec perf99 99 ;;
	perf999) perf_rec perf999 999 ;;
	esac
}

echo 1 > /proc/sys/kernel/bpf_stats_enabled
workload_start w631 || exit 1
order=(base p99 n99 p999 n999)
[ "$HAVE_PERF" = 1 ] && order+=(perf99 perf999)
# Every profiled window is compared with the mean of the no-profiler
# windows just before and after it (the machine's load drifts).
k=${#order[@]}
run base
for ((i = 0; i < REPS; i++)); do
	for ((j = 1; j < k; j++)); do
		run "${order[(i + j - 1) % (k - 1) + 1]}"
		run base
	done
done
echo quit >&3
exec 3>&-
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)

# shellcheck disable=SC2046
tb=$(stats $(cat "$WORK/base")); tb=$(printf '%.0f' "${tb%% *}")
# slow NAME: the target's slowdown under NAME, median (min … max) of each
# window's throughput against the mean of the no-profiler windows around it.
slow() {
	[ -s "$WORK/$1" ] || { echo "n/a"; return; }
	awk -v n="$1" '{ name[NR] = $1; v[NR] = $2 }
		END { for (i = 2; i < NR; i++)
			if (name[i] == n && name[i - 1] == "base" && name[i + 1] == "base")
				print 100 * (1 - v[i] / ((v[i - 1] + v[i + 1]) / 2)) }' "$WORK/seq" > "$WORK/$1.slow"
	# shellcheck disable=SC2046
	fmt3 "$(stats $(cat "$WORK/$1.slow"))" '%+.2f%%'
}
# own NAME: the profiler's CPU, % of one core, median (min … max).
own() {
	[ -s "$WORK/$1.cpu" ] || { echo "n/a"; return; }
	# shellcheck disable=SC2046
	fmt3 "$(stats $(cat "$WORK/$1.cpu"))" '%.2f%%'
}
# samples NAME: median samples per window; with --native, how many of all
# the windows' samples unwound to the thread's first frame.
samples() {
	local s u t
	s=$(sed -n 's/^luabpfprof: \([0-9]*\) samples in .*/\1/p' "$WORK/$1.log" | median)
	t=$(sed -n 's/^luabpfprof: native: \([0-9]*\) samples, .*/\1/p' "$WORK/$1.log" | awk '{ s += $1 } END { print s + 0 }')
	u=$(sed -n 's/^luabpfprof: native: [0-9]* samples, \([0-9]*\) unwound.*/\1/p' "$WORK/$1.log" | awk '{ s += $1 } END { print s + 0 }')
	if [ "$t" -gt 0 ]; then echo "$s per window; $u of $t unwound to the thread's first frame"
	else echo "$s per window"; fi
}
# verdict NAME: "met" when the medians of the target's slowdown and of the
# profiler's own CPU are both under 1%.
verdict() {
	local s c
	# shellcheck disable=SC2046
	s=$(stats $(cat "$WORK/$1.slow"))
	# shellcheck disable=SC2046
	c=$(stats $(cat "$WORK/$1.cpu"))
	s=${s%% *}; c=${c%% *}
	awk -v s="$s" -v c="$c" 'BEGIN {
		printf "own CPU %.2f%% of a core (target < 1%%): %s; target slowdown %+.2f%% (target < 1%%): %s",
			c, c < 1 ? "met" : "MISSED", s, s < 1 ? "met" : "MISSED" }'
}

# bpf NAME: the BPF program's µs per sample, median (min … max).
bpf() {
	[ -s "$WORK/$1.bpf" ] || { echo "(not counted)"; return; }
	# shellcheck disable=SC2046
	fmt3 "$(stats $(cat "$WORK/$1.bpf"))" '%.2f'
}

# inctx NAME HZ: the BPF program's share of the target's CPU, from its
# median time per sample at HZ samples per CPU second of the target.
inctx() {
	local b
	[ -s "$WORK/$1.bpf" ] || { echo "n/a"; return; }
	# shellcheck disable=SC2046
	b=$(stats $(cat "$WORK/$1.bpf"))
	awk -v b="${b%% *}" -v hz="$2" 'BEGIN { printf "%.2f%%", b * hz / 1e4 }'
}

rows=""
# life NAME: the profiler's CPU seconds from start to exit, median (min … max).
life() {
	[ -s "$WORK/$1.life" ] || { echo "n/a"; return; }
	# shellcheck disable=SC2046
	fmt3 "$(stats $(cat "$WORK/$1.life"))" '%.2f s'
}
row() { rows+="| $1 | $(slow "$2") | $(own "$2") | $(life "$2") | $3 | $4 |"$'\n'; }
row "luabpfprof 99 Hz" p99 "$(bpf p99)" "$(samples p99)"
row "luabpfprof 999 Hz" p999 "$(bpf p999)" "$(samples p999)"
row "luabpfprof --native 99 Hz" n99 "$(bpf n99)" "$(samples n99)"
row "luabpfprof --native 999 Hz" n999 "$(bpf n999)" "$(samples n999)"
if [ "$HAVE_PERF" = 1 ]; then
	row "perf record --call-graph dwarf 99 Hz" perf99 "(in the kernel)" "perf.data $(median < "$WORK/perf99.kb") KiB per window"
	row "perf record --call-graph dwarf 999 Hz" perf999 "(in the kernel)" "perf.data $(median < "$WORK/perf999.kb") KiB per window"
fi

cat <<EOT

## 10. --native: whole native + Lua stacks, against perf record --call-graph dwarf

\`luabpfprof --native\` copies up to 16 KiB of the user stack and the registers at each
sample (bpf/native.bpf.h) into a ring buffer, and unwinds the copies in user space by
\`.eh_frame\` (libdw) at each drain (docs/native.md). \`perf record --call-graph dwarf\`
(default: 8 KiB of stack per sample) copies the same way but only writes the copies to
perf.data: its unwinding happens later, in \`perf report\` or \`perf script\`, and is not
counted here. Target: bench/workloads/w631.lua on Debian's LuaJIT, one busy process,
$REPS repetitions of ${T} s windows, one per profiler and rate below in an order rotated by
repetition, each between two windows with no profiler, its slowdown taken against their
mean; throughput is LCG steps per CPU second of the target, whose CPU time
includes what the sampler does in its context (the BPF program, perf's stack copy).
A profiler's own CPU is its schedstat time (all threads) from the window's start to its
end, in % of one core: luabpfprof's start-up (loading and verifying BPF) and its
symbolization at exit are outside the window (the column "start to exit" has them: for
luabpfprof mostly loading and verifying BPF; for perf, writing build IDs at exit); with
--native the drains' unwinding is inside. The BPF program's time per sample is bpf_stats' run_time_ns over the window divided
by the samples counted in it (including its early exits on other processes; it runs in the target's context, so it is part of the slowdown). Median (min … max). Load average $LOAD0 at the start, $LOAD1 at the end (2 CPUs,
shared with other engineers' tests). Measured $(date -u '+%Y-%m-%d %H:%M UTC') with luabpfprof
$(git describe --always --dirty 2>/dev/null || echo '?') and $(perf --version 2>/dev/null || echo 'no perf').
\`bench/native.sh [REPS] [T]\` reproduces it.

Target throughput with no profiler: $tb steps per CPU s ($(range < "$WORK/base")).

| profiler | target's slowdown | profiler's own CPU in the window (% of one core) | profiler's CPU, start to exit | BPF program per sample (µs) | samples |
|---|---|---|---|---|---|
${rows}
Issue 17's targets, \`--native\` at 99 Hz: $(verdict n99).
The BPF program alone, which runs in the target's context, takes $(inctx n99 99) of the
target's CPU under \`--native\` at 99 Hz ($(inctx p99 99) without), $(inctx n999 999) at 999 Hz
($(inctx p999 999) without): the slowdowns above are whole-window throughput changes, and
their spread (min … max, and luabpfprof without --native) shows how far the shared machine's
noise reaches.
At 999 Hz (for comparison; the targets are for 99 Hz): $(verdict n999).

Runs (steps per CPU s): none: $(tr '\n' ' ' < "$WORK/base")
EOT
for n in p99 p999 n99 n999 perf99 perf999; do
	[ -s "$WORK/$n" ] && echo "; $n: $(tr '\n' ' ' < "$WORK/$n")"
done
echo
