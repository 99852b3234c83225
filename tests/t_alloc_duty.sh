#!/bin/bash
# SPDX-License-Identifier: MIT
# -e alloc's duty cycle (user/sample/alloc_gate.c): by default the
# allocator probe is attached only for random windows adding up to 3% of
# the time, and what they saw is scaled up by the share of time they were
# measured to cover.  alloc.lua with a pace (PER 30) allocates steadily
# (every 10 ms, big() 26-slot tables and small() 1-slot ones, about 3:1 in
# bytes) and measures its bytes in-process, as a server allocates per
# request, far below what it could even with the probe attached (about
# 1 MiB/s: a loaded machine must not make it fall behind in a window and
# catch up outside it):
#   - with --alloc-duty 20 over ~10 s (11 MiB), big's share of the bytes is
#     within 5 points of the in-process split (which the always-on probe matches,
#     t_alloc.sh) and the scaled total within 20% of the in-process bytes;
#   - by default the summary says how much of the time was probed (3% asked,
#     a few windows in ~6 s, 7 MiB) and that the bytes are an estimate;
#   - --alloc-exact warns how much slower the target will run before it
#     attaches, and refuses --continuous without --alloc-exact-in-production;
#   - bad --alloc-duty values and combinations are one line, exit 2.
source "$(dirname "$0")/lib.sh"

# paced NAME MIB PROFILER-OPTIONS...: alloc.lua at a pace under -e alloc,
# attached before its first measured allocation; NAME.target has its truth,
# NAME.err the profiler's stderr, NAME.folded the profile.
paced() {
	local b=$TMP/$1 mib=$2 tgt; shift 2
	start_bg "$LUAJIT" "$WL/alloc.lua" "$mib" "$b.go" 30 > "$b.target"
	tgt=$BGPID
	if ! wait_for "$b.target" '^ready' 30; then
		fail "$(basename "$b"): start" "the workload printed no ready line"
		return 1
	fi
	"$PROF" -v -e alloc "$@" -f folded -o "$b.folded" -p "$tgt" 2> "$b.err" &
	local prof=$!
	if ! wait_for "$b.err" 'sampling allocations at' 30; then
		fail "$(basename "$b"): attach" "$(grep -v '^libbpf: ' "$b.err" | tail -n 3 | tr '\n' '|')"
		kill "$tgt" "$prof" 2>/dev/null
		return 1
	fi
	touch "$b.go"
	wait "$tgt"
	wait "$prof"
}

# truth_of 1|2 NAME: the in-process bytes of big (1) or small (2).
truth_of() { sed -nE "s/^truth big=([0-9]+) small=([0-9]+).*/\\$1/p" "$TMP/$2.target"; }

if paced duty 11 --alloc-duty 20 --alloc-every 4K; then
	read -r big small < <(awk '/alloc\.lua:big( |;)/ { b += $NF }
		/alloc\.lua:small( |;)/ { s += $NF } END { print b + 0, s + 0 }' "$TMP/duty.folded")
	tb=$(truth_of 1 duty); ts=$(truth_of 2 duty)
	got=$(awk -v b="$big" -v s="$small" 'BEGIN { printf "%d", (b + s ? 100 * b / (b + s) + 0.5 : -1) }')
	want=$(awk -v b="$tb" -v s="$ts" 'BEGIN { printf "%d", 100 * b / (b + s) + 0.5 }')
	margin "duty 20%: big's share of big+small" "$got" "$want" 5
	if [ $((big + small)) -ge 300 ] && near "$got" "$want" 5; then
		pass "duty 20%: big allocates ${got}% in $((big + small)) samples, in-process ${want}%"
	else
		fail "duty 20%: split" "big ${got}% in $((big + small)) samples, in-process ${want}%"
	fi
	est=$(sed -nE 's/^luabpfprof: -e alloc: ([0-9.]+) MiB allocated, sampled .* attached, ([0-9.]+)% of the time.*/\1/p' "$TMP/duty.err")
	margin "duty 20%: scaled total MiB against in-process" "$est" \
		"$(awk -v b="$tb" -v s="$ts" 'BEGIN { printf "%.2f", (b + s) / 1048576 }')" \
		"$(awk -v b="$tb" -v s="$ts" 'BEGIN { printf "%.2f", 0.2 * (b + s) / 1048576 }')"
	check "duty 20%: scaled total ${est:-?} MiB within 20% of $(awk -v b="$tb" -v s="$ts" 'BEGIN { printf "%.1f", (b + s) / 1048576 }') MiB in-process" \
		awk -v e="${est:--1}" -v b="$tb" -v s="$ts" 'BEGIN { t = (b + s) / 1048576; exit !(e >= 0.8 * t && e <= 1.2 * t) }'
fi

if paced default 7; then
	duty=$(sed -nE 's/.* attached, ([0-9.]+)% of the time: bytes estimated.*/\1/p' "$TMP/default.err")
	check "default: the summary says the probe was attached ${duty:-?}% of the time (3% asked)" \
		awk -v d="${duty:--1}" 'BEGIN { exit !(d > 0.3 && d < 12) }'
	check "default: no exactness warning" bash -c "! grep -q 'traps on every allocation' '$TMP/default.err'"
fi

# --alloc-exact: the warning comes before the probe is attached.
# (The workload waits for a go file that never comes.)
start_bg "$LUAJIT" "$WL/alloc.lua" 1 "$TMP/exact.never" > "$TMP/exact.target"
if wait_for "$TMP/exact.target" '^ready' 30; then
	"$PROF" -v -e alloc --alloc-exact -d 1 -f folded -o "$TMP/exact.folded" -p "$BGPID" 2> "$TMP/exact.err"
	check "--alloc-exact warns how much slower the target runs, before attaching" \
		awk '/traps on every allocation.*9x slower.*22x/ { w = NR } /sampling allocations at/ { a = NR }
			END { exit !(w && a && w < a) }' "$TMP/exact.err"
fi
cleanup_children

bad() {
	local why=$1; shift
	"$PROF" "$@" > "$TMP/bad.out" 2> "$TMP/bad.err"
	local rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l < "$TMP/bad.err")" -eq 1 ] && grep -q -- "$why" "$TMP/bad.err"; then
		pass "bad input: $* ($(cat "$TMP/bad.err"))"
	else
		fail "bad input: $*" "exit $rc, stderr: $(tr '\n' '|' < "$TMP/bad.err")"
	fi
}
bad "also needs --alloc-exact-in-production" -e alloc --alloc-exact --continuous --out-dir "$TMP/o" -p 1
bad "goes with --alloc-exact" -e alloc --alloc-exact-in-production -p 1
bad "give one" -e alloc --alloc-exact --alloc-duty 5 -p 1
bad "alloc-exact needs -e alloc" --alloc-exact -p 1
bad "alloc-duty needs -e alloc" --alloc-duty 5 -p 1
for v in 0 0.01 101 5x -3 ''; do
	bad "invalid --alloc-duty" -e alloc --alloc-duty "$v" -p 1
done
