#!/bin/bash
# SPDX-License-Identifier: MIT
# -e alloc against an allocation workload with a known split
# (tests/workloads/alloc.lua: per round big() and small() build n tables
# each, n random, big's 26 slots and small's 1: about 3:1 in bytes, 1:1 in
# allocations; each measures its own bytes in-process with
# collectgarbage("count") and the GC stopped).  On Debian's 2.1 (GC64 and
# non-GC64) and OpenResty's luajit2:
#   - the profile's split between big and small is within 5 points of the
#     bytes they allocated, measured in-process;
#   - enough samples were taken to mean something, and the summary says
#     how many bytes they stand for;
# pprof says alloc_space/bytes; bad --alloc-every / -e values are one
# line and exit 2.  The always-on probe (--alloc-exact): the default's
# windows are t_alloc_duty.sh's.
source "$(dirname "$0")/lib.sh"

EVERY=16K
MIB=16

# wait_ready FILE: until the target printed its "ready" line (30 s at most).
wait_ready() {
	for _ in $(seq 300); do grep -q '^ready' "$1" 2>/dev/null && return 0; sleep 0.1; done
	return 1
}

# profile NAME LUAJIT MIB FORMAT OUT: runs the workload under -e alloc,
# attached before the first measured allocation (the workload waits for
# OUT.go); OUT.target gets the workload's truth, OUT.err the profiler's
# stderr, OUT.FORMAT the profile.
profile() {
	local name=$1 lj=$2 mib=$3 fmt=$4 out=$5 tgt
	rm -f "$out.go"
	start_bg "$lj" "$WL/alloc.lua" "$mib" "$out.go" > "$out.target"
	tgt=$BGPID
	if ! wait_ready "$out.target"; then
		fail "$name: start" "the workload printed no ready line"
		return 1
	fi
	start_bg "$PROF" -v -e alloc --alloc-exact --alloc-every "$EVERY" -f "$fmt" -o "$out.$fmt" \
		-p "$tgt" 2> "$out.err"
	PROFPID=$BGPID
	if ! wait_for "$out.err" 'sampling allocations at' 30; then
		fail "$name: attach" "no allocator probe: $(grep -v '^libbpf: ' "$out.err" | tail -n 4 | tr '\n' '|' | head -c 600)"
		kill "$tgt" "$PROFPID" 2>/dev/null
		return 1
	fi
	touch "$out.go"
	wait "$tgt"
	wait "$PROFPID"
}

# split NAME LUAJIT: big's share of big + small, profile against truth.
split() {
	local name=$1 lj=$2 b=$TMP/$1 got want n
	if [ ! -x "$lj" ]; then
		echo "SKIP: $name: no $lj"
		return
	fi
	profile "$name" "$lj" "$MIB" folded "$b" || return
	read -r got n < <(awk '/alloc\.lua:big( |;)/ { b += $NF } /alloc\.lua:small( |;)/ { s += $NF }
		END { if (b + s) printf "%d %d\n", 100 * b / (b + s) + 0.5, b + s; else print "- 0" }' \
		"$b.folded")
	want=$(awk '/^truth/ { split($2, b, "="); split($3, s, "=");
		printf "%d", 100 * b[2] / (b[2] + s[2]) + 0.5 }' "$b.target")
	margin "$name: big's share of big+small" "$got" "$want" 5
	if [ "$n" -ge 300 ] && near "$got" "$want" 5; then
		pass "$name: big allocates ${got}% of big+small in $n samples, in-process ${want}%"
	else
		fail "$name: split" "big got ${got}% in $n samples, in-process ${want}%; $(head -c 300 "$b.folded" | tr '\n' '|')"
	fi
	check "$name: summary gives the bytes sampled" \
		grep -qE '^luabpfprof: -e alloc: [0-9.]+ MiB allocated, sampled \([0-9]+ samples, one per 16 KiB\)' "$b.err"
	# At the entry every call would trap twice (docs/alloc.md: 336x).
	check "$name: the breakpoint is past the allocator's first test ($(grep -ao 'allocator .*' "$b.err" | head -1))" \
		grep -q 'probed on the jump after its first test' "$b.err"
}

split deb-gc64 "$TOP/.deps/luajit-deb/usr/bin/luajit"
split openresty-gc64 "$TOP/.deps/luajit2/usr/bin/luajit"
split deb-nogc64 "$TOP/.deps/luajit-deb-nogc64/usr/bin/luajit"
split openresty-nogc64 "$TOP/.deps/luajit2-nogc64/usr/bin/luajit"

# pprof: the sample types an allocation profile has.
if profile pprof "$LUAJIT_EXE" 2 pprof "$TMP/pp"; then
	if gzip -dc "$TMP/pp.pprof" 2>/dev/null | grep -aq alloc_space &&
	   gzip -dc "$TMP/pp.pprof" | grep -aq 'alloc\.lua'; then
		pass "pprof: alloc_space/bytes with the workload's frames"
	else
		fail "pprof" "no alloc_space sample type or no frames"
	fi
fi

# Bad input: one line, exit 2.
bad() {
	local why=$1; shift
	"$PROF" "$@" > "$TMP/bad.out" 2> "$TMP/bad.err"
	local rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l < "$TMP/bad.err")" -eq 1 ] && grep -q "$why" "$TMP/bad.err"; then
		pass "bad input: $* ($(cat "$TMP/bad.err"))"
	else
		fail "bad input: $*" "exit $rc, stderr: $(tr '\n' '|' < "$TMP/bad.err")"
	fi
}
bad "invalid --alloc-every '12Q'" -e alloc --alloc-every 12Q -p 1
bad "invalid --alloc-every '512'" -e alloc --alloc-every 512 -p 1
bad "invalid --alloc-every '2G'" -e alloc --alloc-every 2G -p 1
bad "alloc-every needs -e alloc" --alloc-every 64K -p 1
bad "unknown event 'heap'" -e heap -p 1
