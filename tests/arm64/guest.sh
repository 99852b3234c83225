#!/bin/bash
# SPDX-License-Identifier: MIT
# The arm64 guest's runs (tests/t_arm64.sh boots it with tests/kernels/boot.sh:
# Debian's arm64 kernel under qemu-system-aarch64, the arm64 root of
# tests/arm64/sysroot.sh, the checkout at $TOP, /out the host's folder).
# Each run leaves its profile and its output in /out; the host checks them
# (python3 and xmllint are the host's: the guest holds only what is
# profiled).  One line per run: "RUN: name rc seconds".
# Durations and rates are for emulation (TCG), which runs the guest some
# ten to twenty times slower than this machine.
set -u
source "$TOP/tests/lib.sh"
source "$TOP/tests/truth.sh"
OUT=/out
SECS=${SECS:-8}
HZ=${HZ:-999}
RUNTIMES=${RUNTIMES:-deb or}

# lj NAME: the command running runtime NAME (deb: Debian's LuaJIT 2.1,
# or: OpenResty's), from its tree in the root, with its libluajit and
# jit/*.lua.
lj() {
	local t=/opt/luajit-deb
	[ "$1" = or ] && t=/opt/luajit2
	echo env "LD_LIBRARY_PATH=$t/usr/lib/aarch64-linux-gnu" \
		"LUA_PATH=$t/usr/share/luajit-2.1.0-beta3/?.lua;$t/usr/share/luajit-2.1/?.lua;;" \
		"$t/usr/bin/luajit"
}

# run NAME CMD...: CMD's stdout and stderr in /out/NAME.{out,err}.
run() {
	local name=$1 t0=$SECONDS rc
	shift
	"$@" >"$OUT/$name.out" 2>"$OUT/$name.err"
	rc=$?
	echo "RUN: $name $rc $((SECONDS - t0))"
}

# attach NAME RUNTIME LJARGS PROFARGS: the workload LJARGS (one word list)
# under RUNTIME, profiled by pid for SECS with PROFARGS.
attach() {
	local name=$1 rt=$2 lja=$3 profa=$4 pid
	# shellcheck disable=SC2046,SC2086
	start_bg $(lj "$rt") $lja
	pid=$BGPID
	wait_lua "$pid"
	# shellcheck disable=SC2086
	run "$name" "$PROF" -p "$pid" -d "$SECS" -F "$HZ" $profa
	cleanup_children
}

# lines_at FILE N [SECS]: waits up to SECS (60) for FILE to hold N lines.
lines_at() {
	local i
	for ((i = 0; i < ${3:-60} * 10; i++)); do
		[ "$(wc -l <"$1")" -ge "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

# holds_perf_event PID: whether PID has a perf event open (one process:
# a readlink per descriptor takes seconds under emulation).
holds_perf_event() {
	[ -n "$(find "/proc/$1/fd" -lname '*perf_event*' -print -quit 2>/dev/null)" ]
}

# timed NAME RUNTIME LJARGS PROFARGS: as attach, for a workload that ends
# each round with a line "round KEY UNITS SECS..." (what each of its parts
# ran and the CPU seconds it took, measured in-process), profiled once WARM
# rounds have run (its traces compiled: under emulation the compiler's
# fixed work would take a large part of a short window).  /out/NAME.window
# holds the rounds the profile covers: the count of lines when sampling
# started (the profiler holds its perf events: the programs are loaded,
# and loading takes seconds here) and when it ended; the host takes the
# truth from /out/NAME.rounds's lines between, a window within a round of
# the profile's at each end.
WARM=${WARM:-10}
TSECS=${TSECS:-5}	# a shorter window: 4000 samples or so, the suite's time
timed() {
	local name=$1 rt=$2 lja=$3 profa=$4 rounds=$TMP/$1.rounds n0=-1 wl profiler i t0 rc
	# shellcheck disable=SC2046,SC2086
	start_bg $(lj "$rt") $lja >"$rounds"
	wl=$BGPID
	lines_at "$rounds" "$WARM" || echo "RUN: $name: no $WARM rounds in 60 s"
	t0=$SECONDS
	# shellcheck disable=SC2086
	start_bg "$PROF" -p "$wl" -d "$TSECS" -F "$HZ" $profa >"$OUT/$name.out" 2>"$OUT/$name.err"
	profiler=$BGPID
	for ((i = 0; i < 1200; i++)); do
		if holds_perf_event "$profiler"; then
			n0=$(wc -l <"$rounds")
			break
		fi
		kill -0 "$profiler" 2>/dev/null || break
		sleep 0.05
	done
	wait "$profiler"
	rc=$?
	echo "$n0 $(wc -l <"$rounds")" >"$OUT/$name.window"
	echo "RUN: $name $rc $((SECONDS - t0))"
	cleanup_children
	cp "$rounds" "$OUT/$name.rounds"
}

uname -r >"$OUT/kernel"
run check "$PROF" --check-kernel
for rt in $RUNTIMES; do
	# 6:3:1 with the JIT on (pprof) and off (SVG), rounds shortened for
	# emulation as in the kernel matrix (tests/kernels/guest.sh).
	attach "w631-jit-$rt" "$rt" "$WL/w631.lua - 20000" "--lua-only -o $OUT/w631-jit-$rt.pb.gz"
	attach "w631-joff-$rt" "$rt" "-joff $WL/w631.lua - 2000" "--lua-only -o $OUT/w631-joff-$rt.svg"
	# Lines inside traces (arm64's traces are found by their code):
	# jit_lines.lua's three loops, timed in-process.
	timed "lines-$rt" "$rt" "$WL/jit_lines.lua - truth" "--lua-only --jp l -o $OUT/lines-$rt.txt"
	# A trace's inlined frames: main > mid > leaf inside one trace.
	attach "inline-$rt" "$rt" "$WL/jit_inline.lua" "--lua-only -f folded -o $OUT/inline-$rt.folded"
	# VM states against vmstates.lua's phases (its unit costs timed
	# first: its first round then fits emulation).
	timed "vm-$rt" "$rt" "$WL/vmstates.lua - truth" "--vmstate-frames -f folded -o $OUT/vm-$rt.folded"
done
# --native: cbrt called through the FFI from spin_cbrt, interpreted.
attach native deb "-joff $WL/native_libm.lua 600" "--native -f folded -o $OUT/native.folded"
# --native on a C host (tests/hosts/nhost.c, cross-built by t_arm64.sh):
# main -> run_frame -> lua_pcall -> Lua -> FFI physics_step -> Lua on_hit,
# interpreted (a trace's line needs the trace, which arm64 does not name
# in vmstate: docs/arm64.md).
host=$TOP/.output-arm64/hosts/nhost-deb
if [ -x "$host" ]; then
	start_bg env LD_LIBRARY_PATH=/opt/luajit-deb/usr/lib/aarch64-linux-gnu "$host" 600 nojit >"$OUT/nhost.truth"
	hp=$BGPID
	wait_for "$OUT/nhost.truth" '^ready' 30
	run nhost "$PROF" -p "$hp" -d "$SECS" -F "$HZ" --native -f folded -o "$OUT/nhost.folded"
	cleanup_children
fi
# Off-CPU and wall time against offcpu.lua's in-process clocks (as the
# kernel matrix's guest runs them): its feeder answers through a FIFO.
# offcpu_run NAME EVENT: offcpu.lua -joff launched under EVENT, folded.
offcpu_run() {
	local fifo=$TMP/$1.fifo
	mkfifo "$fifo.req" "$fifo.resp"
	# shellcheck disable=SC2046
	start_bg $(lj deb) "$WL/offcpu_feed.lua" "$fifo"
	# shellcheck disable=SC2046
	run "$1" "$PROF" -F "$HZ" -e "$2" -f folded -o "$OUT/$1.folded" -- $(lj deb) -joff "$WL/offcpu.lua" "$SECS" "$fifo"
	cleanup_children
}
offcpu_run off off-cpu
offcpu_run wall wall
# -e alloc: alloc.lua's big() against small(), their bytes counted
# in-process; the workload starts allocating once the probe is attached
# (or, if it never is, once the wait gives up: the share then fails).
# One sample each 8 KiB: about 1,000 samples of its 8 MiB.
go=$TMP/alloc.go
# shellcheck disable=SC2046
start_bg $(lj deb) "$WL/alloc.lua" 8 "$go" >"$OUT/alloc.truth"
tgt=$BGPID
if wait_for "$OUT/alloc.truth" '^ready' 60; then
	start_bg "$PROF" -v -e alloc --alloc-exact --alloc-every 8K -f folded -o "$OUT/alloc.folded" -p "$tgt" \
		>"$OUT/alloc.out" 2>"$OUT/alloc.err"
	prof=$BGPID
	wait_for "$OUT/alloc.err" 'sampling allocations at' 120
	touch "$go"
	wait "$tgt"
	wait "$prof"
	echo "RUN: alloc $?"
fi
cleanup_children
# --jit: jit_health.lua's closure loop aborts with NYI: bytecode (FNEW).
# shellcheck disable=SC2046
run jit "$PROF" --jit -F "$HZ" -- $(lj deb) "$WL/jit_health.lua" fnew "$SECS"
# dump: dump_coros.lua's coroutines, suspended at frames and lines it
# wrote down itself, with their locals (the host checks them with
# tests/dump_check.py, as tests/t_dump.sh does).
for rt in $RUNTIMES; do
	mkfifo "$TMP/coros-$rt.fifo"
	# shellcheck disable=SC2046
	start_bg $(lj "$rt") "$WL/dump_coros.lua" "$OUT/coros-$rt.truth" "$TMP/coros-$rt.fifo" 40
	if wait_for "$OUT/coros-$rt.truth.ready" ready 60; then
		run "coros-$rt" "$PROF" dump -p "$BGPID" --json --locals
	else
		echo "RUN: coros-$rt: the workload never wrote its truth"
	fi
	cleanup_children
done
# --jit's side traces (bench/workloads/tables.lua: chains of exit-0 side
# traces, exits sharing a PC, which only the branch a link rewrote tells
# apart: jit/jsnap.c), against -jv's list from the same process, once
# its traces have formed.
# shellcheck disable=SC2046
start_bg $(lj deb) "-jv=$OUT/tables.jv" "$TOP/bench/workloads/tables.lua" 120 >/dev/null
pid=$BGPID
wait_lua "$pid"
sleep 20
run tables "$PROF" -p "$pid" -d 2 --jit --jit-hot 0
cleanup_children
# -a --continuous on a running w631 (tests/truth.sh agent_until), at most
# 60 s; then --heap on the same process.
# shellcheck disable=SC2046
start_bg $(lj deb) "$WL/w631.lua"
pid=$BGPID
wait_lua "$pid"
t0=$SECONDS
agent_until "$OUT/agent" 60 --every 3s 2>"$OUT/agent.err"
echo "RUN: agent $? $((SECONDS - t0))"
run heap "$PROF" --heap -p "$pid"
cleanup_children
echo "END arm64 guest"
