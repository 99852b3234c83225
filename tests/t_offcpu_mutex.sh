#!/bin/bash
# SPDX-License-Identifier: MIT
# Off-CPU ground truth in a C host: tests/hosts/mutexhost.c runs two
# threads, each with its own VM, sharing a pthread mutex.  The holder
# burns the CPU in Lua while it holds the mutex; the waiter's want() calls
# the lua_CFunction mutex_lock, which blocks in pthread_mutex_lock, and
# work() burns the CPU; rounds of random length, timed in the host with
# CLOCK_MONOTONIC.  On both LuaJIT builds, in a wall profile:
#   - the waiter's blocked time sits under waiter:want;mutex_lock (the Lua
#     function that called the locking C function);
#   - its share of the waiter's time, and work()'s, match the truth within
#     TOL points (shares of the waiter thread's Lua time: [host] is left
#     out, as in t_offcpu.sh);
# and in an off-CPU profile the waiter's blocked time (not waiting for a
# CPU) is all under want;mutex_lock.
set -uo pipefail
source "$(dirname "$0")/lib.sh"

SECS=3
TOL=3
HZ=997

make -s -C "$TOP/tests/hosts" >"$TMP/make.log" 2>&1 ||
	fail "hosts build" "$(tr '\n' '|' < "$TMP/make.log")"

source "$TOP/tests/truth.sh"	# truth FILE PART, pct A B
# wshare FILE REGEX [SKIP]: percentage of the waiter's weight (lines through
# its chunk) on lines matching REGEX and not SKIP.
wshare() {
	awk -v re="$2" -v skip="${3:-^$}" '/;waiter:/ { n = $NF; t += n; if ($0 ~ re && $0 !~ skip) m += n }
		END { printf "%.1f\n", t ? 100 * m / t : -1 }' "$1"
}

for v in deb or; do
	host=$TOP/.output/hosts/mutexhost-$v
	[ -x "$host" ] || { echo "SKIP: mutexhost-$v not built"; continue; }
	n=wall-$v
	"$PROF" -e wall -F "$HZ" -f folded -o "$TMP/$n.folded" -- "$host" "$SECS" \
		>"$TMP/$n.out" 2>"$TMP/$n.err"
	total=$(truth "$TMP/$n.out" total)
	if [ -z "$total" ] || ! grep -q ';waiter:' "$TMP/$n.folded"; then
		fail "$n runs" "no truth or no waiter stacks: $(tr '\n' '|' < "$TMP/$n.err")"
		continue
	fi
	check "$n: the block sits under the calling Lua function (waiter:want;mutex_lock)" \
		grep -q ';waiter:want;mutex_lock [0-9]' "$TMP/$n.folded"
	within "$n: waiter's time in want (the mutex)" \
		"$(wshare "$TMP/$n.folded" ';waiter:want;mutex_lock')" "$(pct "$(truth "$TMP/$n.out" lock)" "$total")"
	within "$n: waiter's time in work" \
		"$(wshare "$TMP/$n.folded" ';waiter:work')" "$(pct "$(truth "$TMP/$n.out" work)" "$total")"
	check "$n: the holder burns under hold while it holds the mutex" \
		grep -q ';holder:hold;holder:burn [0-9]' "$TMP/$n.folded"
done

host=$TOP/.output/hosts/mutexhost-deb
if [ -x "$host" ]; then
	"$PROF" -e off-cpu -f folded -o "$TMP/off.folded" -- "$host" "$SECS" \
		>"$TMP/off.out" 2>"$TMP/off.err"
	grep -v 'waiting for a CPU' "$TMP/off.folded" >"$TMP/off.blocked"
	within "off-cpu: the waiter's blocked time is under want;mutex_lock" \
		"$(wshare "$TMP/off.blocked" ';waiter:want;mutex_lock')" 100
fi

# --tree --per-thread in wall mode: one section per thread, each a tree
# with wall and CPU columns; in the waiter's, want (the mutex) has wall
# time and next to no CPU time, in the truth's proportion to work.
if [ -x "$host" ]; then
	"$PROF" -e wall --tree --per-thread -F "$HZ" -- "$host" "$SECS" >"$TMP/tree.out" 2>"$TMP/tree.err"
	check "--tree --per-thread: a section and a summary line per thread" \
		[ "$(grep -c '^=== PID [0-9]* TID [0-9]* ' "$TMP/tree.out")" -eq 3 ] &&
		[ "$(grep -c '^luabpfprof: PID [0-9]* TID [0-9]*: wall ' "$TMP/tree.err")" -eq 3 ]
	check "--tree: wall ms and cpu ms columns" grep -q 'wall ms *cpu ms *function' "$TMP/tree.out"
	# row FUNC COLUMN: the waiter section's FUNC row, column 3 (wall ms) or 4 (cpu ms).
	row() {
		awk -v f="$1" -v c="$2" '/^===/ { sec = "" } / waiter:0$/ { sec = "w" }
			sec == "w" && $NF == f { print $c; exit }' "$TMP/tree.out"
	}
	want_wall=$(row waiter:want 3) work_wall=$(row waiter:work 3)
	lock=$(truth "$TMP/tree.out" lock) work=$(truth "$TMP/tree.out" work)
	if [ -n "$want_wall" ] && [ -n "$work_wall" ] && [ -n "$lock" ]; then
		within "--tree: the waiter's want wall ms against work's" \
			"$(pct "$want_wall" "$(awk -v a="$want_wall" -v b="$work_wall" 'BEGIN { print a + b }')")" \
			"$(pct "$lock" "$(awk -v a="$lock" -v b="$work" 'BEGIN { print a + b }')")"
		check "--tree: want is off the CPU (cpu ms under 10% of wall ms), work is not" \
			awk -v w="$want_wall" -v c="$(row waiter:want 4)" -v k="$(row waiter:work 4)" \
			'BEGIN { exit !(c < 0.1 * w && k > 0) }'
	else
		fail "--tree: the waiter's section" "$(head -c 600 "$TMP/tree.out" | tr '\n' '|')"
	fi
	check "--tree --per-thread: the holder's section holds no waiter frame" \
		awk '/^===/ { sec = "" } / holder:0$/ { sec = "h" } sec == "h" && / waiter:/ { bad = 1 }
			END { exit bad }' "$TMP/tree.out"
fi
