#!/bin/bash
# arm64 (issue 30): the profiler cross-built for arm64 (make ARCH=arm64,
# against Debian's arm64 libraries unpacked by tests/arm64/sysroot.sh)
# runs in Debian's arm64 kernel under qemu-system-aarch64 (TCG: there is no
# arm64 machine here) with an arm64 root of Debian's packages, never
# installed, and profiles Debian's arm64 LuaJIT 2.1 and OpenResty's there
# (tests/arm64/guest.sh).  The guest leaves its profiles in a host folder;
# they are checked here: the verifier takes every mode, 6:3:1 within TOL
# points with the JIT on (pprof read back) and off (SVG read back).  A
# package Debian's registry cannot serve is a SKIP line that says so.
# Prints its time.
source "$(dirname "$0")/lib.sh"
source "$TOP/tests/truth.sh"

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
	if [ "$n" -ge 500 ]; then
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
echo "time: arm64 $((SECONDS - start)) s"
