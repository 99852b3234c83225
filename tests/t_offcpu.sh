#!/bin/bash
# SPDX-License-Identifier: MIT
# Off-CPU and wall profiles (-e off-cpu, -e wall) against ground truth
# measured in-process.  offcpu.lua alternates burn() (CPU) with wait_pipe()
# (a FIFO that offcpu_feed.lua answers on a timer), nap() (FFI usleep) and
# shell() (os.execute), in rounds of random length, and prints how long
# each part took by CLOCK_MONOTONIC.  The profiles' shares must match
# within TOL points: wall shares of elapsed time, off-CPU shares of the
# blocking parts' time off the CPU.  Then a busy offcpu_busy.lua sharing
# one CPU with another: the time it waits for the CPU must show as
# [waiting for a CPU], not as blocked.  Then a block still open when the
# run ends, and every output format of a wall profile.
#
# Stacks are checked with -joff: with the JIT on, a block in a C function
# called from a trace is charged to the frames of the trace snapshot that
# covers the call, which may not hold the inlined caller (nap() inlined
# into the main loop shows as the main chunk, at times as burn()); there
# only the blocked total is asserted.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
source "$TOP/tests/truth.sh"

SECS=3
TOL=3
HZ=997

# The LuaJIT builds: Debian's, and OpenResty's when set up.
declare -A LJ=([deb]="$TOP/.deps/luajit-deb" [or]="$TOP/.deps/luajit2")
lj_cmd() {	# lj_cmd VARIANT: the command line running that luajit
	local tree=${LJ[$1]}
	echo env "LUA_PATH=$tree/usr/share/luajit-2.1.0-beta3/?.lua;;" "$tree/usr/bin/luajit"
}

# under LEAF CALLER FILE: in go tool pprof -traces output, a trace whose
# leaf is LEAF has CALLER next.
under() { awk -v l="$1" -v c="$2" '$NF == l { want = 1; next }
	want { if ($1 == c) found = 1; want = 0 } END { exit !found }' "$3"; }


# run NAME VARIANT EVENT [LUAJIT OPTS]: profiles offcpu.lua under EVENT
# (and the profiler options in PROF_OPTS); folded profile in
# $TMP/NAME.folded, truth in .out, summary in .err.
run() {
	local name=$1 variant=$2 event=$3; shift 3
	local fifo=$TMP/$name.fifo
	mkfifo "$fifo.req" "$fifo.resp" || return 1
	# shellcheck disable=SC2046
	start_bg $(lj_cmd "$variant") "$WL/offcpu_feed.lua" "$fifo"
	# shellcheck disable=SC2046
	# shellcheck disable=SC2086
	"$PROF" -F "$HZ" -e "$event" ${PROF_OPTS:-} -f folded -o "$TMP/$name.folded" -- \
		$(lj_cmd "$variant") "$@" "$WL/offcpu.lua" "$SECS" "$fifo" \
		>"$TMP/$name.out" 2>"$TMP/$name.err"
	cleanup_children
	MAIN=$(main_pid "$TMP/$name.folded" offcpu.lua:burn)
	if [ -z "$MAIN" ] || [ -z "$(truth "$TMP/$name.out" total)" ]; then
		fail "$name runs" "no profile or no truth: $(tr '\n' '|' < "$TMP/$name.err")"
		return 1
	fi
}

# The Lua function each part runs in, as a folded frame.
declare -A FRAME=([burn]=';offcpu.lua:burn' [wait_pipe]=';offcpu.lua:wait_pipe;'
		  [nap]=';offcpu.lua:nap;' [shell]=';offcpu.lua:shell;')
WAITING='\[waiting for a CPU\]'

check_wall() {	# check_wall NAME: each part's share of elapsed time
	local name=$1 f=$TMP/$1.folded o=$TMP/$1.out part total
	total=$(truth "$o" total)
	for part in burn wait_pipe nap shell; do
		within "$name $part" "$(fshare "$f" "$MAIN" "${FRAME[$part]}")" \
			"$(pct "$(truth "$o" $part)" "$total")"
	done
	check "$name summary line" grep -Eq '^luabpfprof: wall [0-9.]+ s = on-CPU [0-9.]+ s \(Lua [0-9.]+ s, host C [0-9.]+ s\) \+ blocked [0-9.]+ s \+ waiting for a CPU' "$TMP/$name.err"
}

check_offcpu() {	# check_offcpu NAME: shares of the time blocked
	local name=$1 f=$TMP/$1.folded o=$TMP/$1.out part blocked=0 b
	# The blocking parts' off-CPU time: burn() is preempted on a busy
	# machine, which its clock cannot tell from work; the parts' clocks
	# include their own waits for a CPU (after a write wakes the feeder).
	grep -v "$WAITING" "$f" >"$f.blocked"
	grep -v ';offcpu.lua:burn' "$f" >"$f.parts"
	for part in wait_pipe nap shell; do
		b=$(truth "$o" $part); blocked=$(awk -v a="$blocked" -v b="$b" 'BEGIN { print a + b }')
	done
	for part in wait_pipe nap shell; do
		within "$name $part" "$(fshare "$f.parts" "$MAIN" "${FRAME[$part]}")" \
			"$(pct "$(truth "$o" $part)" "$blocked")"
	done
	within "$name burn never blocks" "$(fshare "$f.blocked" "$MAIN" "${FRAME[burn]}")" 0
	# Blocks in C called from Lua sit under the calling Lua function.
	check "$name io.read under wait_pipe" grep -q ';offcpu.lua:wait_pipe;io.method.read ' "$f"
	check "$name usleep under nap" grep -q ';offcpu.lua:nap;usleep ' "$f"
	check "$name os.execute under shell" grep -q ';offcpu.lua:shell;os.execute ' "$f"
	check "$name waiting is under burn" grep -q ';offcpu.lua:burn;\[waiting for a CPU\] ' "$f"
	check "$name summary line" grep -Eq '^luabpfprof: off-cpu [0-9.]+ s = blocked [0-9.]+ s \+ waiting for a CPU [0-9.]+ s, [0-9]+ switches out' "$TMP/$name.err"
}

for v in deb or; do
	[ -x "${LJ[$v]}/usr/bin/luajit" ] || { echo "SKIP: $v LuaJIT not set up"; continue; }
	run "wall-joff-$v" $v wall -joff && check_wall "wall-joff-$v"
	run "off-joff-$v" $v off-cpu -joff && check_offcpu "off-joff-$v"
done

# JIT on: the main thread's blocked time from its --per-thread summary
# line.  Not per function: which Lua frames a block in C called from a
# trace is charged to depends on the trace's snapshots (see the top).
if PROF_OPTS=--per-thread run wall-jit-deb deb wall; then
	o=$TMP/wall-jit-deb.out
	total=$(truth "$o" total)
	blocked=$(awk -v a="$(truth "$o" wait_pipe)" -v b="$(truth "$o" nap)" \
		-v c="$(truth "$o" shell)" 'BEGIN { print a + b + c }')
	# The thread with the most wall time is the workload's.
	got=$(awk '/^luabpfprof: PID [0-9]+ TID [0-9]+: wall / {
		for (i = 1; i < NF; i++) { if ($i == "wall") w = $(i + 1); if ($i == "blocked") b = $(i + 1) }
		if (w > best) { best = w; share = 100 * b / w } }
		END { printf "%.1f\n", (best > 0 ? share : -1) }' "$TMP/wall-jit-deb.err")
	within "wall-jit-deb blocked (per-thread summary)" "${got:--1}" "$(pct "$blocked" "$total")"
fi

# CPU starvation, on both LuaJIT builds: a busy copy launched under the
# profiler (so the whole of its life is profiled) shares one CPU with
# another.  The time it waited for the CPU (wall - its own CPU time) is
# [waiting for a CPU], not blocked.
cpu=$(awk '/^Cpus_allowed_list/ { split($2, a, "[-,]"); print a[1] }' /proc/self/status)
for v in deb or; do
	[ -x "${LJ[$v]}/usr/bin/luajit" ] || continue
	n=busy-$v
	# shellcheck disable=SC2046
	start_bg taskset -c "$cpu" $(lj_cmd $v) "$WL/offcpu_busy.lua" 30 >/dev/null
	# shellcheck disable=SC2046
	"$PROF" -e wall -F "$HZ" -f folded -o "$TMP/$n.folded" -- \
		taskset -c "$cpu" $(lj_cmd $v) "$WL/offcpu_busy.lua" 2 >"$TMP/$n.out" 2>"$TMP/$n.err"
	cleanup_children
	w=$(truth "$TMP/$n.out" wall) c=$(truth "$TMP/$n.out" cpu)
	B=$(main_pid "$TMP/$n.folded" offcpu_busy.lua)
	if [ -z "$w" ] || [ -z "$c" ] || [ -z "$B" ]; then
		fail "$n runs" "no profile or no truth: $(tr '\n' '|' < "$TMP/$n.err")"
		continue
	fi
	want=$(pct "$(awk -v w="$w" -v c="$c" 'BEGIN { print w - c }')" "$w")
	within "$n waiting for a CPU" "$(fshare "$TMP/$n.folded" "$B" "$WAITING")" "$want"
	within "$n on the CPU" "$(fshare "$TMP/$n.folded" "$B" '.' "$WAITING")" "$(pct "$c" "$w")"
	check "$n summary has waiting" grep -Eq 'waiting for a CPU [1-9][0-9.]* s' "$TMP/$n.err"
done

# A thread still off the CPU when the run ends is weighed up to the end:
# offcpu_late.lua enters a 30 s sleep once the profiler is attached (its
# sched_switch link is open), and the 3 s run must show most of that time.
mkfifo "$TMP/late.fifo"
# shellcheck disable=SC2046
start_bg $(lj_cmd deb) -joff "$WL/offcpu_late.lua" "$TMP/late.fifo"
late=$BGPID
sleep 0.3
"$PROF" -e off-cpu -d 3 -p "$late" -f folded -o "$TMP/late.folded" 2>"$TMP/late.err" &
lbp=$!
for ((i = 0; i < 600; i++)); do
	grep -qs 'link_type:.raw_tracepoint' /proc/$lbp/fdinfo/* && break
	sleep 0.05
done
t0=$(date +%s.%N)
echo go >"$TMP/late.fifo"
wait "$lbp"
t1=$(date +%s.%N)
cleanup_children
got=$(awk '/;offcpu_late\.lua:sleepy;usleep / { s += $NF }
	END { printf "%.2f\n", s / 1e9 }' "$TMP/late.folded")
want=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f\n", b - a }')
check "a block still open at the end counts ($got s of at most $want s)" \
	awk -v g="$got" -v w="$want" 'BEGIN { exit !(g > 0.5 && g >= 0.6 * w && g <= w + 0.05) }'

# Every output of a wall profile, read by the real readers: go tool pprof
# by both sample types, the SVG in chromium and the speedscope file against
# its schema (tests/node/check_live.js), the SVG's title and palette.
# --min-block 8ms drops most naps (2 to 10 ms) and the feeder's shorter
# answers: they are counted on the summary line, and every kept block
# is 8 ms or more (without the threshold naps average 6 ms: it fails).
export HOME=$TMP GOCACHE=$TMP/gocache GOPATH=$TMP/gopath GOFLAGS=-mod=mod GOTOOLCHAIN=local
export PPROF_TOOLS='' PPROF_BINARY_PATH=/nonexistent
mkfifo "$TMP/fmt.fifo.req" "$TMP/fmt.fifo.resp"
# shellcheck disable=SC2046
start_bg $(lj_cmd deb) "$WL/offcpu_feed.lua" "$TMP/fmt.fifo"
# shellcheck disable=SC2046
start_bg $(lj_cmd deb) -joff "$WL/offcpu.lua" 300 "$TMP/fmt.fifo"	# killed at the end: six profilers load at once
target=$BGPID
sleep 0.5
mkdir -p "$TMP/fmt" "$TMP/fmtoff"
waits=()
for out in p.pb.gz p.svg p.speedscope.json; do
	"$PROF" -e wall --min-block 8ms -p "$target" -d 2 -F "$HZ" -o "$TMP/fmt/$out" \
		2>"$TMP/fmt/$out.err" &
	waits+=($!)
	# The same files of an off-CPU profile, at the same time.
	"$PROF" -e off-cpu -p "$target" -d 2 -o "$TMP/fmtoff/$out" 2>"$TMP/fmtoff/$out.err" &
	waits+=($!)
done
wait "${waits[@]}"
cleanup_children
p=$TMP/fmt/p.pb.gz
go tool pprof -raw "$p" >"$TMP/fmt/raw" 2>&1
check "pprof: sample types samples/count wall/nanoseconds" \
	grep -q '^samples/count wall/nanoseconds' "$TMP/fmt/raw"
for idx in wall samples; do
	go tool pprof -sample_index=$idx -traces "$p" >"$TMP/fmt/traces.$idx" 2>&1
	check "pprof -sample_index=$idx: usleep's block under nap" under usleep offcpu.lua:nap \
		"$TMP/fmt/traces.$idx"
done
go tool pprof -sample_index=wall -tagfocus=state=blocked -top "$p" >"$TMP/fmt/top" 2>&1
check "pprof: blocked time by leaf (os.execute, usleep, io.read)" \
	grep -q 'os.execute' "$TMP/fmt/top"
check "pprof: the top's unit is time" grep -Eq '^Showing nodes accounting for [0-9.]+(ms|s),' "$TMP/fmt/top"
check "--min-block: short blocks counted" \
	grep -Eq '\([1-9][0-9]* under --min-block' "$TMP/fmt/p.pb.gz.err"
# Each switch out kept (samples/count) weighs at least 8 ms (wall/ns).
check "--min-block: every block kept is 8 ms or more" awk '
	/^Samples:/ { on = 1; next } /^Locations/ { on = 0 }
	on && $1 ~ /^[0-9]+$/ { n_ = $1 + 0; ns = $2 + 0; next }
	on && /state:\[blocked\]/ { n++; if (ns < 8000000 * n_) bad++ }
	END { exit !(n > 0 && !bad) }' "$TMP/fmt/raw"
check "svg: the title names the event" grep -q 'wall-clock time' "$TMP/fmt/p.svg"
check "svg: blocked time has its own colour" grep -q '>mostly blocked</text>' "$TMP/fmt/p.svg"
check "speedscope: unit nanoseconds" grep -q '"unit":"nanoseconds"' "$TMP/fmt/p.speedscope.json"
(cd "$TOP/tests/node" && node check_live.js "$TMP/fmt" offcpu.lua:nap)

# The off-CPU files: pprof by both sample types, the SVG in chromium.
p=$TMP/fmtoff/p.pb.gz
go tool pprof -raw "$p" >"$TMP/fmtoff/raw" 2>&1
check "off-cpu pprof: sample types samples/count off_cpu/nanoseconds" \
	grep -q '^samples/count off_cpu/nanoseconds' "$TMP/fmtoff/raw"
for idx in off_cpu samples; do
	go tool pprof -sample_index=$idx -traces "$p" >"$TMP/fmtoff/traces.$idx" 2>&1
	check "off-cpu pprof -sample_index=$idx: usleep's block under nap" under usleep offcpu.lua:nap \
		"$TMP/fmtoff/traces.$idx"
done
go tool pprof -sample_index=off_cpu -top "$p" >"$TMP/fmtoff/top" 2>&1
check "off-cpu pprof: the top's unit is time, os.execute in it" \
	grep -Eq '^Showing nodes accounting for [0-9.]+(ms|s),' "$TMP/fmtoff/top" &&
	grep -q 'os.execute' "$TMP/fmtoff/top"
check "off-cpu svg: the title names the event" grep -q 'off-CPU time' "$TMP/fmtoff/p.svg"
check "off-cpu speedscope: unit nanoseconds" grep -q '"unit":"nanoseconds"' "$TMP/fmtoff/p.speedscope.json"
(cd "$TOP/tests/node" && node check_live.js "$TMP/fmtoff" offcpu.lua:nap)
