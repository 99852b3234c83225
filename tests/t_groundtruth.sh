#!/bin/bash
# SPDX-License-Identifier: MIT
# Proves the workload corpus independently of our profiler: each workload
# with a split known by construction runs ~2 s under LuaJIT's own jit.p
# (JIT on and -joff), and the shares must match within 5 points.  jit.p
# charges C and fast-function time to a Lua frame, so only what it can
# show is asserted.  i1 = a 1 ms interval: ~2000 samples keep sampling
# noise near 1 point (the default 10 ms also aliases with the workloads'
# ~10 ms rounds).
set -uo pipefail
source "$(dirname "$0")/lib.sh"
source "$TOP/tests/variants.sh"

SECS=2
TOL=5

# jp NAME VARIANT [OPTS...] MODE WORKLOAD: runs WORKLOAD for SECS under
# -jp=MODE on VARIANT; the report goes to $TMP/NAME.txt.
jp() {
	local name=$1 variant=$2; shift 2
	local n=$#
	local opts=("${@:1:n-2}") mode=${*:n-1:1} wl=${*:n:1}
	local out=$TMP/$name.txt
	(variant_exec "$variant" "${opts[@]}" "-jp=$mode,$out" "$WL/$wl" "$SECS") \
		2>"$TMP/$name.err" || fail "$name" "exited $?: $(tr '\n' '|' < "$TMP/$name.err")"
	[ -s "$out" ] || : >"$out"
}

# sum_share FILE KEY...: sum of the shares printed for KEYs (missing = 0).
sum_share() {
	local f=$1 total=0 k v; shift
	for k in "$@"; do v=$(share "$f" "$k"); total=$((total + ${v:-0})); done
	echo "$total"
}

for jit in on off; do
	tag=jit-$jit; [ "$jit" = off ] && tag=joff
	opt=(); [ "$jit" = off ] && opt=(-joff)

	jp "w631-$jit" deb-bin "${opt[@]}" Fi1 w631.lua
	check_share "w631 $tag a" "$TMP/w631-$jit.txt" w631.lua:a 60 $TOL
	check_share "w631 $tag b" "$TMP/w631-$jit.txt" w631.lua:b 30 $TOL
	check_share "w631 $tag c" "$TMP/w631-$jit.txt" w631.lua:c 10 $TOL

	jp "recurse-$jit" deb-bin "${opt[@]}" Fi1 recurse.lua
	check_share "recurse $tag leaf" "$TMP/recurse-$jit.txt" recurse.lua:leaf 100 $TOL

	# With the JIT on, jit.p's safe points fall unevenly around coroutine
	# switches (it read 69/31 once on a loaded machine): its split is a
	# truth only with -joff, where every bytecode is a safe point.
	if [ "$jit" = off ]; then
		jp "coro-$jit" deb-bin "${opt[@]}" Fi1 coro.lua
		check_share "coro $tag inside" "$TMP/coro-$jit.txt" coro.lua:inside 75 $TOL
		check_share "coro $tag outside" "$TMP/coro-$jit.txt" coro.lua:outside 25 $TOL
	fi

	jp "pcall-$jit" deb-bin "${opt[@]}" Fi1 pcall.lua
	check_share "pcall $tag pcall'd" "$TMP/pcall-$jit.txt" pcall.lua:15 50 $TOL
	check_share "pcall $tag xpcall'd" "$TMP/pcall-$jit.txt" pcall.lua:19 33 $TOL
	check_share "pcall $tag __index" "$TMP/pcall-$jit.txt" pcall.lua:__index 17 $TOL

	# table.sort's C time lands on the comparators (lines 22, 23) run next.
	jp "cfuncs-$jit" deb-bin "${opt[@]}" Fm0i1 cfuncs.lua
	check_share "cfuncs $tag lua_part" "$TMP/cfuncs-$jit.txt" cfuncs.lua:lua_part 40 $TOL
	check_share "cfuncs $tag rep_part" "$TMP/cfuncs-$jit.txt" cfuncs.lua:rep_part 30 $TOL
	got=$(sum_share "$TMP/cfuncs-$jit.txt" cfuncs.lua:sort_part cfuncs.lua:22 cfuncs.lua:23)
	margin "cfuncs $tag sort+comparators" "$got" 30 "$TOL"
	check "cfuncs $tag sort+comparators ($got%)" near "$got" 30 $TOL

	jp "deep-$jit" deb-bin "${opt[@]}" Fi1 deep.lua
	check_share "deep $tag spin" "$TMP/deep-$jit.txt" deep.lua:spin 100 $TOL
done

# Zones: with -joff jit.p's z view is exact.  With the JIT on, a v/z-only
# profile has no safe points inside traces and skews; adding f scope (zf)
# puts them back, so that view is the one asserted.
jp zones-off deb-bin -joff zi1 zones.lua
check_share "zones off alpha" "$TMP/zones-off.txt" alpha 67 $TOL
check_share "zones off beta" "$TMP/zones-off.txt" beta 33 $TOL
jp zones-on deb-bin zfi1 zones.lua
check_share "zones on alpha" "$TMP/zones-on.txt" alpha 67 $TOL
check_share "zones on beta" "$TMP/zones-on.txt" beta 33 $TOL

# VM states need the JIT (one phase is compiled code).
jp vmstates-v deb-bin vi1 vmstates.lua
check_share "vmstates Interpreted" "$TMP/vmstates-v.txt" Interpreted 40 $TOL
# compiled_phase's time is its trace running or being compiled: a run where
# the JIT recompiles inside the phase (7% seen once) moves time from
# Compiled to JIT Compiler, so the truth by construction is their sum.
c=$(share "$TMP/vmstates-v.txt" Compiled) j=$(share "$TMP/vmstates-v.txt" "JIT Compiler")
compiled=$(( ${c:-0} + ${j:-0} ))
[ -n "$c" ] || compiled=
margin "vmstates Compiled + JIT Compiler" "$compiled" 30 "$TOL"
if near "$compiled" 30 "$TOL"; then pass "vmstates Compiled + JIT Compiler (${compiled}%)"
else fail "vmstates Compiled + JIT Compiler" "got ${compiled}% want 30±$TOL; report: $(tr '\n' '|' < "$TMP/vmstates-v.txt")"; fi
check_share "vmstates GC" "$TMP/vmstates-v.txt" "Garbage Collector" 20 $TOL
check_share "vmstates C" "$TMP/vmstates-v.txt" "C code" 10 $TOL
jp vmstates-F deb-bin Fi1 vmstates.lua
check_share "vmstates interp_phase" "$TMP/vmstates-F.txt" vmstates.lua:interp_phase 40 $TOL
check_share "vmstates compiled_phase" "$TMP/vmstates-F.txt" vmstates.lua:compiled_phase 30 $TOL
check_share "vmstates gc_phase" "$TMP/vmstates-F.txt" vmstates.lua:gc_phase 20 $TOL
check_share "vmstates c_phase" "$TMP/vmstates-F.txt" vmstates.lua:c_phase 10 $TOL

# churn: every generated function is named gen<k>.lua and runs on lines
# k % 50 + 1 and k % 50 + 3 (churn.lua); any other pairing would mean a
# mixed-up proto.
jp churn deb-bin lm0i1 churn.lua
read -r good bad < <(awk '$2 ~ /^gen[0-9]+\.lua:[0-9]+$/ {
	split($2, p, /[n.:]/); a = p[2] % 50 + 1
	if (p[4] == a || p[4] == a + 2) g++; else b++ }
	END { print g + 0, b + 0 }' "$TMP/churn.txt")
check "churn keys consistent ($good distinct, $bad wrong)" test "$good" -ge 50 -a "$bad" -eq 0

# The same corpus on every LuaJIT build and host (jit.p runs inside the
# hosts too), and the C phase through the host's own lua_CFunction.
for v in "${VARIANTS[@]}"; do
	[ "$v" = deb-bin ] && continue
	jp "w631-$v" "$v" Fi1 w631.lua
	check_share "w631 on $v a" "$TMP/w631-$v.txt" w631.lua:a 60 $TOL
	check_share "w631 on $v c" "$TMP/w631-$v.txt" w631.lua:c 10 $TOL
	if [[ $v == *-host ]]; then
		jp "vmstates-$v" "$v" vi1 vmstates.lua
		check_share "vmstates on $v C (chost.spin)" "$TMP/vmstates-$v.txt" "C code" 10 $TOL
		check_share "vmstates on $v Compiled" "$TMP/vmstates-$v.txt" Compiled 30 $TOL
	fi
done

# twovm runs two VMs for the time given, then closes both and exits 0.
for v in "${TWOVM_VARIANTS[@]}"; do
	out=$TMP/twovm-$v.txt
	(twovm_exec "$v" 0.5) >"$out" 2>&1
	check "twovm on $v exits cleanly" test $? -eq 0
	check "twovm on $v prints both tids" test "$(grep -cE '^thread [12] tid [0-9]+ runs hot_(one|two)$' "$out")" -eq 2
done
