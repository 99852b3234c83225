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

uname -r >"$OUT/kernel"
run check "$PROF" --check-kernel
for rt in $RUNTIMES; do
	# 6:3:1 with the JIT on (pprof) and off (SVG), rounds shortened for
	# emulation as in the kernel matrix (tests/kernels/guest.sh).
	attach "w631-jit-$rt" "$rt" "$WL/w631.lua - 20000" "--lua-only -o $OUT/w631-jit-$rt.pb.gz"
	attach "w631-joff-$rt" "$rt" "-joff $WL/w631.lua - 2000" "--lua-only -o $OUT/w631-joff-$rt.svg"
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
# Off-CPU time against offcpu.lua's in-process clocks (as the kernel
# matrix's guest runs it): its feeder answers through a FIFO.
fifo=$TMP/off.fifo
mkfifo "$fifo.req" "$fifo.resp"
# shellcheck disable=SC2046
start_bg $(lj deb) "$WL/offcpu_feed.lua" "$fifo"
# shellcheck disable=SC2046
run off "$PROF" -F "$HZ" -e off-cpu -f folded -o "$OUT/off.folded" -- $(lj deb) -joff "$WL/offcpu.lua" "$SECS" "$fifo"
cleanup_children
echo "END arm64 guest"
