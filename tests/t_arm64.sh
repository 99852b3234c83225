#!/bin/bash
# SPDX-License-Identifier: MIT
# arm64 (issue 30): the profiler cross-built for arm64 (make ARCH=arm64,
# against Debian's arm64 libraries unpacked by tests/arm64/sysroot.sh)
# runs in Debian's arm64 kernel under qemu-system-aarch64 (TCG: there is no
# arm64 machine here) with an arm64 root of Debian's packages, never
# installed, and profiles Debian's arm64 LuaJIT 2.1 and OpenResty's there
# (tests/arm64/guest.sh).  The guest leaves its profiles in a host folder;
# they are checked here: the verifier takes every mode, 6:3:1 within TOL
# points with the JIT on (pprof read back) and off (SVG read back),
# --native chains through libm's cbrt to main and through the C host
# tests/hosts/nhost.c, off-CPU split and wall shares within TOL of
# in-process clocks, -e alloc's split within 5 points of the bytes counted
# in-process, --jit's abort reason and side traces' parents against -jv,
# a trace's inlined frames, dump's coroutines against their own truth,
# -a --continuous's interval files and a --heap census, lines inside
# traces (jit_lines.lua, its loops timed in-process) and the VM states
# --jp v counts against vmstates.lua's phases.  A package
# Debian's registry cannot serve is a SKIP line that says so.
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
	margin "arm64: $1" "$2" "$3" "$TOL"
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
# A trace's inlined frames (jit_inline.lua: mid and leaf inlined into the
# main chunk's loop): at least 40% of the samples under main > mid > leaf
# (57-68% seen; without the frames rebuilt from the trace's snapshot, 0).
for rt in deb or; do
	n=$(awk '/jit_inline\.lua:0;jit_inline\.lua:mid;jit_inline\.lua:leaf / { n += $NF }
		{ t += $NF } END { printf "%d %d", t ? 100 * n / t : 0, t }' "$out/inline-$rt.folded" 2>/dev/null)
	if [ "${n#* }" -ge 1000 ] 2>/dev/null && [ "${n% *}" -ge 40 ]; then
		pass "arm64: inlined frames $rt: main > mid > leaf in ${n% *}% of ${n#* } samples"
	else
		fail "arm64: inlined frames $rt" "main > mid > leaf in '${n% *}'% of '${n#* }' samples: $(sort -t' ' -k2 -nr "$out/inline-$rt.folded" 2>/dev/null | head -n 3 | tr '\n' '|')"
	fi
done
# Lines and --jp v against truths the workloads measured in-process over
# the rounds the profile covered (guest.sh timed: NAME.rounds's lines
# after n0 up to n1 of NAME.window).
# window_truth NAME: "KEY SECS" for each part, over that window: the CPU
# seconds its runs took, but a run whose cost per unit is over 3 times
# the part's median there counts its units at the median.  The guest's
# clocks run on while this machine deschedules the emulator or a vCPU
# waits for the other (a loaded host): that is CPU time of whatever the
# guest ran then, in os.clock, while the sampler's timer, late, takes one
# sample for it (seen: 4 full collections timed 0.86 s, 5 ms each
# otherwise).  The same holds a JIT compile that falls in one loop's
# timing (jit_lines.lua's outer loop gets hot after 56 rounds).  Nothing
# when the guest saw no sampling start or no round ended inside the window.
window_truth() {
	local n0 n1
	read -r n0 n1 <"$out/$1.window" 2>/dev/null || return
	[ "${n0:--1}" -ge 1 ] && [ "${n1:-0}" -gt "$n0" ] || return
	awk -v n0="$n0" -v n1="$n1" '$1 != "round" || NR <= n0 || NR > n1 { next }
		{ for (i = 2; i + 2 <= NF; i += 3) { k = $i; if (!(k in m)) { keys[++nk] = k; m[k] = 0 }
			  if ($(i + 1) > 0) { r = ++m[k]; u[k, r] = $(i + 1); t[k, r] = $(i + 2); c[k, r] = $(i + 2) / $(i + 1) }
			  else s[k] += $(i + 2) } }
		END { for (q = 1; q <= nk; q++) { k = keys[q]; n = m[k]
			for (a = 1; a <= n; a++) o[a] = c[k, a]
			for (a = 2; a <= n; a++) { v = o[a]; for (b = a - 1; b >= 1 && o[b] > v; b--) o[b + 1] = o[b]; o[b + 1] = v }
			med = n ? (n % 2 ? o[(n + 1) / 2] : (o[n / 2] + o[n / 2 + 1]) / 2) : 0
			for (a = 1; a <= n; a++) s[k] += c[k, a] > 3 * med ? u[k, a] * med : t[k, a]
			printf "%s %.6f\n", k, s[k] } }' "$out/$1.rounds"
}
# samples NAME: the sample count of NAME's summary line.
samples() { sed -n 's/^luabpfprof: \([0-9]*\) samples in .*/\1/p' "$out/$1.err" 2>/dev/null | tail -n 1; }
for rt in deb or; do
	# jit_lines.lua: three loops compiled to traces of their own, on lines
	# 14, 20 and 26; their calls timed in-process.  A sample in a trace
	# needs the trace found by its code (arm64's traces leave vmstate 0):
	# without it the loops' time sits on their functions' first lines
	# (12, 18, 24), so the three lines must hold nearly all of it; each
	# line's part of the three against its loop's part of their time.
	name="lines $rt JIT on"
	tf=$TMP/lines-$rt.truth
	window_truth "lines-$rt" >"$tf"
	n=$(samples "lines-$rt")
	l14=$(share "$out/lines-$rt.txt" jit_lines.lua:14) l20=$(share "$out/lines-$rt.txt" jit_lines.lua:20)
	l26=$(share "$out/lines-$rt.txt" jit_lines.lua:26)
	in3=$(( ${l14:-0} + ${l20:-0} + ${l26:-0} ))
	if [ "${n:-0}" -lt 1000 ] || [ ! -s "$tf" ]; then
		fail "arm64: $name" "${n:-0} samples, truth window '$(cat "$out/lines-$rt.window" 2>/dev/null)': $(tail -n 3 "$out/lines-$rt.err" 2>/dev/null | tr '\n' '|')"
	elif [ "$in3" -lt 90 ]; then
		fail "arm64: $name: the loops' lines" "hold ${in3}% of $n samples: $(tr '\n' '|' <"$out/lines-$rt.txt")"
	else
		pass "arm64: $name: the loops' lines hold ${in3}% of $n samples"
		tall=$(awk '{ t += $2 } END { print t }' "$tf")
		for f in a:14:$l14 b:20:$l20 c:26:$l26; do
			IFS=: read -r loop line got <<<"$f"
			within "$name: line $line" "$(pct "$got" "$in3")" "$(pct "$(awk -v k="$loop" '$1 == k { print $2 }' "$tf")" "$tall")"
		done
	fi
	# vmstates.lua: four phases, each running in one VM state only
	# (interp_phase jit.off'd: Interpreted; compiled_phase's loop: its
	# trace, Compiled, or JIT Compiler while it is compiled again;
	# gc_phase's full collections: Garbage Collector; c_phase's
	# table.sort: C code).  Over the samples in the four phases (the main
	# loop's glue between them, clock reads and the truth's write, is C
	# code of no phase), each state's share (the leaf frames
	# --vmstate-frames adds, from the same vmstate --jp v counts) within
	# TOL points of its phase's share, and at least 95% of each phase's
	# samples in its state: a state misread (a trace of arm64's vmstate 0
	# taken for the interpreter) fails both.  Not the phases' CPU seconds
	# timed in-process, which x86-64 asserts: here the guest's clocks run
	# on while this machine deschedules the emulator, and os.clock charges
	# that to whatever ran (seen: 4 full collections timed 0.86 s, 5 ms
	# each otherwise) while the sampler's late timer takes one sample;
	# those seconds are printed only.  The phases must hold 90% of the
	# samples and each phase 5%: none can pass empty.
	name="--jp v states, vmstates.lua, $rt"
	f=$out/vm-$rt.folded
	n=$(samples "vm-$rt")
	if [ "${n:-0}" -lt 1000 ]; then
		fail "arm64: $name" "${n:-0} samples: $(tail -n 3 "$out/vm-$rt.err" 2>/dev/null | tr '\n' '|')"
		continue
	fi
	timed=$(window_truth "vm-$rt" | awk '{ k[NR] = $1; v[NR] = $2; t += $2 }
		END { for (i = 1; i <= NR; i++) printf "%s%s %.0f%%", (i > 1 ? ", " : ""), k[i], 100 * v[i] / t }')
	pass "arm64: $name: $n samples (the phases' CPU time in-process: ${timed:-none})"
	for p in "interp_phase:Interpreted" "compiled_phase:Compiled|JIT Compiler" "gc_phase:Garbage Collector" \
		 "c_phase:C code"; do
		phase=${p%%:*} state=${p#*:}
		read -r ps ss pure inph < <(awk -v ph=";vmstates\\.lua:$phase(;| [0-9]+$)" -v st=";\\[($state)\\] [0-9]+$" \
			-v any=";vmstates\\.lua:(interp|compiled|gc|c)_phase(;| [0-9]+$)" '
			{ n = $NF; a += n; if ($0 !~ any) next
			  t += n; in_p = $0 ~ ph; in_s = $0 ~ st; p += in_p * n; s += in_s * n; b += in_p * in_s * n }
			END { printf "%.1f %.1f %.1f %.1f\n", t ? 100 * p / t : -1, t ? 100 * s / t : -1,
				p ? 100 * b / p : -1, a ? 100 * t / a : -1 }' "$f")
		if awk -v p="$ps" -v s="$ss" -v u="$pure" -v a="$inph" -v t="$TOL" \
			'BEGIN { d = s - p; exit !(a >= 90 && p >= 5 && u >= 95 && d <= t && -d <= t) }'; then
			pass "arm64: $name: $state ${ss}%, $phase ${ps}% of the phases' samples, ${pure}% of them in $state"
		else
			fail "arm64: $name: $state" "${ss}% of the phases' samples (${inph}% of all, want 90), $phase ${ps}% (want within $TOL, at least 5), ${pure}% of its samples in $state (want 95): $(sort -t' ' -k2 -nr "$f" | head -n 6 | tr '\n' '|')"
		fi
	done
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
# Off-CPU: the blocked parts' split against the in-process clocks; wall:
# every part's share of the elapsed time.
declare -A FRAME=([burn]=';offcpu.lua:burn' [wait_pipe]=';offcpu.lua:wait_pipe;'
		  [nap]=';offcpu.lua:nap;' [shell]=';offcpu.lua:shell;')
main=$(busiest_pid "$out/off.folded" offcpu.lua 2>/dev/null)
if [ -n "$main" ] && [ -n "$(truth "$out/off.out" total)" ]; then
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
main=$(busiest_pid "$out/wall.folded" offcpu.lua 2>/dev/null)
if [ -n "$main" ] && [ -n "$(truth "$out/wall.out" total)" ]; then
	for part in burn wait_pipe nap shell; do
		within "wall: $part" "$(fshare "$out/wall.folded" "$main" "${FRAME[$part]}")" \
			"$(pct "$(truth "$out/wall.out" $part)" "$(truth "$out/wall.out" total)")"
	done
else
	fail "arm64: wall runs" "no profile or no truth: $(tail -n 4 "$out/wall.err" 2>/dev/null | tr '\n' '|')"
fi
# -e alloc: big's share of the bytes against alloc.lua's own count
# (tolerance 5 points, as t_alloc and the kernel matrix: ~1,000 samples).
read -r got n < <(awk '/alloc\.lua:big( |;)/ { b += $NF } /alloc\.lua:small( |;)/ { s += $NF }
	END { if (b + s) printf "%.1f %d\n", 100 * b / (b + s), b + s; else print "-1 0" }' "$out/alloc.folded" 2>/dev/null)
want=$(awk '/^truth/ { split($2, b, "="); split($3, s, "="); printf "%.1f", 100 * b[2] / (b[2] + s[2]) }' \
	"$out/alloc.truth" 2>/dev/null)
if [ -n "$want" ] && [ "${got:--1}" != -1 ]; then
	TOL=5 within "-e alloc: big's share of the bytes ($(grep -o 'sampling allocations at.*' "$out/alloc.err" | head -n 1))" \
		"$got" "$want"
else
	fail "arm64: -e alloc" "no profile or no truth: $(grep -v '^libbpf: ' "$out/alloc.err" 2>/dev/null | tail -n 3 | tr '\n' '|')"
fi
# --jit: the closure loop's abort and its reason.
if grep -Eq '^    abort    jit_health\.lua:[0-9]+ -- NYI: bytecode' "$out/jit.out" 2>/dev/null; then
	pass "arm64: --jit: $(grep -Em1 'abort +jit_health' "$out/jit.out" | sed 's/^ *//')"
else
	fail "arm64: --jit abort reason" "$(head -c 400 "$out/jit.out" 2>/dev/null | tr '\n' '|') $(tail -n 2 "$out/jit.err" 2>/dev/null | tr '\n' '|')"
fi
# --jit: every side trace the report lists has -jv's parent and exit
# ("[TRACE  12 (11/0) tables.lua:40 ...]"), at least 5 of them.
listed=0 exact=0 bad=
while IFS=$'\t' read -r n pe line; do
	got=$(grep -E "^    trace +$n tables\.lua:$line " "$out/tables.out" 2>/dev/null | head -n 1)
	[ -n "$got" ] || continue
	listed=$((listed + 1))
	case $got in
	*" side of ${pe%/*}/exit ${pe#*/}") exact=$((exact + 1)) ;;
	*) bad="$bad $n($pe):${got##*side of }" ;;
	esac
done < <(sed -n 's/^\[TRACE *\([0-9][0-9]*\) (\([0-9]*\/[0-9]*\)) tables\.lua:\([0-9]*\) .*$/\1\t\2\t\3/p' \
	"$out/tables.jv" 2>/dev/null | sort -u)
if [ -z "$bad" ] && [ "$listed" -ge 5 ]; then
	pass "arm64: --jit: side traces' parent/exit as -jv ($exact of $listed listed)"
else
	fail "arm64: --jit side traces" "listed $listed, exact $exact, wrong:${bad:- none}: $(tail -n 2 "$out/tables.err" 2>/dev/null | tr '\n' '|')"
fi
# dump: every coroutine with its status, frames, lines and locals.
for rt in deb or; do
	if python3 "$TOP/tests/dump_check.py" "$out/coros-$rt.truth" "$out/coros-$rt.out" --locals \
		>"$TMP/coros-$rt.check" 2>&1; then
		pass "arm64: dump --json --locals $rt matches the truth ($(head -n 1 "$TMP/coros-$rt.check"))"
	else
		fail "arm64: dump $rt" "$(tr '\n' '|' <"$TMP/coros-$rt.check" | head -c 600) $(tail -n 2 "$out/coros-$rt.err" 2>/dev/null | tr '\n' '|')"
	fi
done
# -a --continuous: interval files, each read back, naming w631.lua:a.
n=$(intervals_naming "$out/agent" 'w631\.lua:a')
if [ "$n" -ge 2 ]; then
	pass "arm64: -a --continuous: $n interval files name w631.lua:a"
else
	fail "arm64: -a --continuous" "$n interval files name w631.lua:a: $(tail -n 3 "$out/agent.err" 2>/dev/null | tr '\n' '|')"
fi
# --heap: a census of w631's heap, its tables counted.
if grep -q '^# Lua heap census of PID' "$out/heap.out" 2>/dev/null && grep -q '^table ' "$out/heap.out"; then
	pass "arm64: --heap: a census ($(head -n 1 "$out/heap.out" | cut -c1-80))"
else
	fail "arm64: --heap" "$(head -c 300 "$out/heap.out" "$out/heap.err" 2>/dev/null | tr '\n' '|')"
fi
echo "time: arm64 $((SECONDS - start)) s"
