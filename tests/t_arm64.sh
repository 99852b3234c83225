#!/bin/bash
# arm64 (issue 30): the profiler cross-built for arm64 (make ARCH=arm64,
# against Debian's arm64 libraries unpacked by tests/arm64/sysroot.sh)
# runs in Debian's arm64 kernel under qemu-system-aarch64 (TCG: there is no
# arm64 machine here) with an arm64 root of Debian's packages, never
# installed, and profiles Debian's arm64 LuaJIT 2.1 and OpenResty's there
# (tests/arm64/guest.sh).  The guest leaves its profiles in a host folder;
# they are checked here: the verifier takes every mode, 6:3:1 within TOL
# points with the JIT on (pprof read back) and off (SVG read back),
# --native chains through libm's cbrt to main and through the C host
# tests/hosts/nhost.c, off-CPU split within TOL of in-process clocks.  A
# package Debian's registry cannot serve is a SKIP line that says so.
# Prints its time.
source "$(dirname "$0")/lib.sh"
source "$TOP/tests/truth.sh"
trap 'cleanup_children; [ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT

KERNEL=${LBP_ARM64_KERNEL:-linux-image-6.1.0-56-arm64}
TOL=3
start=$SECONDS
for tool in qemu-system-aarch64 aarch64-linux-gnu-gcc python3 xmllint; do
	command -v "$tool" >/dev/null || { fail "arm64: $tool" "not installed (tests/deps/apt.arm64)"; exit 1; }
done

within() {	# within NAME GOT WANT: GOT within TOL points of WANT
	if awk -v g="$2" -v w="$3" -v t="$TOL" 'BEGIN { d = g - w; exit !(g >= 0 && d <= t && -d <= t) }'
	then pass "arm64: $1 (got $2%, truth $3%)"
	else fail "arm64: $1" "got $2% want $3% +-$TOL"; fi
}

# --- The arm64 userland and the cross build ------------------------------------
cache=$("$TOP/tests/arm64/sysroot.sh" 2>"$TMP/sysroot.err")
case $? in
0)	;;
3)	echo "SKIP: arm64: Debian's registry could not serve the arm64 userland ($(tail -n 1 "$TMP/sysroot.err"))"; exit 0 ;;
*)	fail "arm64: the arm64 userland" "$(tail -n 3 "$TMP/sysroot.err" | tr '\n' '|')"; exit 1 ;;
esac
if make -s -C "$TOP" -j2 ARCH=arm64 >"$TMP/build.out" 2>&1 &&
   file "$TOP/.output-arm64/luabpfprof" | grep -q 'ARM aarch64'; then
	pass "arm64: make ARCH=arm64 cross-builds an aarch64 luabpfprof"
else
	fail "arm64: make ARCH=arm64" "$(tail -n 5 "$TMP/build.out" | tr '\n' '|')"
	exit 1
fi

# The C host of tests/t_native.sh, cross-built against Debian's arm64
# libluajit (found in the guest through LD_LIBRARY_PATH).
lj=$cache/sysroot/opt/luajit-deb/usr
mkdir -p "$TOP/.output-arm64/hosts"
if ! aarch64-linux-gnu-gcc --sysroot="$cache/sysroot" -O2 -g -fomit-frame-pointer -Wall -Wextra -Werror \
	-std=gnu11 -I"$lj/include/luajit-2.1" -o "$TOP/.output-arm64/hosts/nhost-deb" \
	"$TOP/tests/hosts/nhost.c" -L"$lj/lib/aarch64-linux-gnu" -l:libluajit-5.1.so.2 -lm -rdynamic \
	2>"$TMP/nhost.err"; then
	fail "arm64: the C host cross-builds" "$(head -n 3 "$TMP/nhost.err" | tr '\n' '|')"
fi

# --- The guest ---------------------------------------------------------------------
out=$TMP/out
mkdir -p "$out"
GUEST_ROOT=$cache/sysroot OUT_DIR=$out "$TOP/tests/kernels/boot.sh" "$KERNEL" "$TOP/tests/arm64/guest.sh" \
	TOP=/lbp PROF=/lbp/.output-arm64/luabpfprof >"$TMP/console" 2>&1
rc=$?
case $rc in
3)	echo "SKIP: arm64: Debian's registry could not serve $KERNEL ($(grep '^boot: ' "$TMP/console" | tail -n 1))"; exit 0 ;;
4)	fail "arm64: $KERNEL boots" "the guest never reached the test: $(tail -n 5 "$TMP/console" | tr '\n' '|')"; exit 1 ;;
esac
grep '^RUN: ' "$TMP/console"
if grep -q '^END arm64 guest' "$TMP/console"; then
	pass "arm64: the guest ran to its end on $(cat "$out/kernel")"
else
	fail "arm64: the guest ran to its end" "exit $rc: $(grep -v '^\[' "$TMP/console" | tail -n 5 | tr '\n' '|')"
fi

# --- What the guest left ------------------------------------------------------------
if grep -q '^0 of [0-9]* modes refused' "$out/check.out" 2>/dev/null; then
	pass "arm64: every mode loads ($(grep -c ' ok ' "$out/check.out") programs)"
else
	fail "arm64: every mode loads" "$(head -c 600 "$out/check.out" "$out/check.err" 2>/dev/null | tr '\n' '|')"
fi
for rt in deb or; do
	name="6:3:1 $rt JIT on"
	python3 "$TOP/tests/pprof_folded.py" "$out/w631-jit-$rt.pb.gz" >"$TMP/jit-$rt.folded" 2>"$TMP/jit-$rt.py.err"
	n=$(awk '{ t += $NF } END { print t + 0 }' "$TMP/jit-$rt.folded")
	if [ "$n" -ge 1000 ]; then
		pass "arm64: $name: pprof read back, $n samples"
		for f in a:60 b:30 c:10; do
			within "$name: ${f%%:*}" "$(fshare "$TMP/jit-$rt.folded" - ";w631\\.lua:${f%%:*}( |;)")" "${f#*:}"
		done
	else
		fail "arm64: $name: pprof read back" "$n samples: $(tail -n 3 "$out/w631-jit-$rt.err" "$TMP/jit-$rt.py.err" 2>/dev/null | tr '\n' '|')"
	fi
	name="6:3:1 $rt -joff"
	svg=$out/w631-joff-$rt.svg
	if xmllint --noout "$svg" 2>"$TMP/svg.err"; then
		pass "arm64: $name: the SVG is well-formed XML"
		for f in a:60:9 b:30:10 c:10:11; do
			IFS=: read -r fn want line <<<"$f"
			got=$(awk -v t="<title>$fn w631.lua:$line" 'index($0, t) { getline; sub(/.*, /, ""); sub(/%.*/, ""); print; exit }' "$svg")
			within "$name: $fn, read back from the SVG" "${got:--1}" "$want"
		done
	else
		fail "arm64: $name: the SVG" "$(head -c 300 "$TMP/svg.err") $(tail -n 3 "$out/w631-joff-$rt.err" 2>/dev/null | tr '\n' '|')"
	fi
done
# --native: cbrt's samples under main;...;spin_cbrt;cbrt.
read -r n in_fn ok < <(awk '{ t += $NF; s = $0; sub(/ [0-9]+$/, "", s)
	if (s ~ /;cbrt(;|$)/) { c += $NF; if (s ~ /;main;.*;native_libm\.lua:spin_cbrt;cbrt(;|$)/) k += $NF } }
	END { print t + 0, c + 0, k + 0 }' "$out/native.folded" 2>/dev/null)
if [ "${n:-0}" -ge 200 ] && [ $((in_fn * 2)) -ge "$n" ] && [ $((ok * 100)) -ge $((in_fn * 99)) ]; then
	pass "arm64: --native: $ok of $in_fn cbrt samples under main;...;spin_cbrt;cbrt ($n in all)"
else
	fail "arm64: --native chain" "${in_fn:-0} of ${n:-0} samples in cbrt, ${ok:-0} under main;...;spin_cbrt: $(sort -t' ' -k2 -nr "$out/native.folded" 2>/dev/null | head -n 3 | tr '\n' '|') $(tail -n 2 "$out/native.err" | tr '\n' '|')"
fi
# --native on the C host: every physics_step sample under its C and Lua
# callers, from _start (as tests/t_native.sh asks on x86-64).
chain=';_start;(.*;)?main;run_frame;lua_pcall;nhost:14;physics_step(;|$)'
read -r n in_fn ok < <(awk -v c="$chain" '{ t += $NF; s = $0; sub(/ [0-9]+$/, "", s)
	if (s ~ /;physics_step(;|$)/) { p += $NF; if (s ~ c) k += $NF } }
	END { print t + 0, p + 0, k + 0 }' "$out/nhost.folded" 2>/dev/null)
if [ "${n:-0}" -ge 200 ] && [ "${in_fn:-0}" -ge 50 ] && [ $((ok * 100)) -ge $((in_fn * 99)) ]; then
	pass "arm64: --native C host: $ok of $in_fn physics_step samples under _start;...;main;run_frame;lua_pcall;nhost:14 ($n in all)"
else
	fail "arm64: --native C host" "${ok:-0} of ${in_fn:-0} physics_step samples (${n:-0} in all) under the chain: $(sort -t' ' -k2 -nr "$out/nhost.folded" 2>/dev/null | head -n 3 | tr '\n' '|') $(tail -n 2 "$out/nhost.err" 2>/dev/null | tr '\n' '|')"
fi
# Off-CPU: the blocked parts' split against the in-process clocks.
main=$(busiest_pid "$out/off.folded" offcpu.lua 2>/dev/null)
if [ -n "$main" ] && [ -n "$(truth "$out/off.out" total)" ]; then
	declare -A FRAME=([wait_pipe]=';offcpu.lua:wait_pipe;' [nap]=';offcpu.lua:nap;' [shell]=';offcpu.lua:shell;')
	grep -v ';offcpu.lua:burn' "$out/off.folded" >"$TMP/off.parts"
	blocked=0
	for part in wait_pipe nap shell; do
		blocked=$(awk -v a="$blocked" -v b="$(truth "$out/off.out" $part)" 'BEGIN { print a + b }')
	done
	for part in wait_pipe nap shell; do
		within "off-cpu: $part" "$(fshare "$TMP/off.parts" "$main" "${FRAME[$part]}")" \
			"$(pct "$(truth "$out/off.out" $part)" "$blocked")"
	done
else
	fail "arm64: off-cpu runs" "no profile or no truth: $(tail -n 4 "$out/off.err" 2>/dev/null | tr '\n' '|')"
fi
echo "time: arm64 $((SECONDS - start)) s"
