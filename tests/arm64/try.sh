#!/bin/bash
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
timed() {
	local name=$1 rt=$2 lja=$3 profa=$4 rounds=$TMP/$1.rounds n0=-1 wl prof i t0 rc
	# shellcheck disable=SC2046,SC2086
	start_bg $(lj "$rt") $lja >"$rounds"
	wl=$BGPID
	lines_at "$rounds" "$WARM" || echo "RUN: $name: no $WARM rounds in 60 s"
	t0=$SECONDS
	# shellcheck disable=SC2086
	start_bg "$PROF" -p "$wl" -d "$SECS" -F "$HZ" $profa >"$OUT/$name.out" 2>"$OUT/$name.err"
	prof=$BGPID
	for ((i = 0; i < 1200; i++)); do
		if ls -l "/proc/$prof/fd" 2>/dev/null | grep -q perf_event; then
			n0=$(wc -l <"$rounds")
			break
		fi
		kill -0 "$prof" 2>/dev/null || break
		sleep 0.05
	done
	wait "$prof"
	rc=$?
	echo "$n0 $(wc -l <"$rounds")" >"$OUT/$name.window"
	echo "RUN: $name $rc $((SECONDS - t0))"
	cleanup_children
	cp "$rounds" "$OUT/$name.rounds"
}

uname -r >"$OUT/kernel"
for rt in $RUNTIMES; do
	timed "vm-$rt" "$rt" "$WL/vmstates.lua - truth" "--jp v -o $OUT/vm-$rt.txt"
	timed "vmf-$rt" "$rt" "$WL/vmstates.lua - truth" "--jp v -f folded -o $OUT/vmf-$rt.folded"
done
echo "END arm64 guest"
