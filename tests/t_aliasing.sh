#!/bin/bash
# SPDX-License-Identifier: MIT
# No aliasing: a program whose round is exactly one sampling period
# (tests/workloads/alias.lua, calibrated on CLOCK_MONOTONIC, split 3:2:1)
# is measured at its true split, because each drain gives every CPU's
# sampling clock a new period within +-10% of 1/F (collector.c,
# jitter_periods).  The same run profiled with the jitter turned off
# (LUABPFPROF_NO_JITTER=1, for this test only) must alias: that shows the
# workload would catch a fixed period, so the first check can fail (run
# the whole test with LUABPFPROF_NO_JITTER=1 to see it fail: 100/0/0).
#
# The target is pinned to one CPU: with a fixed period that CPU's timer
# always fires at the same phase of the round, so one segment takes nearly
# every sample (with two CPUs, two phases: still one segment at 0).
set -u
source "$(dirname "$0")/lib.sh"
trap 'cleanup_children; [ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT

HZ=1000		# a whole number of nanoseconds per period: 1 000 000
SECS=6
CPU=0

# tvd FILE: total variation distance (points) of seg_a/b/c from 50/33.3/16.7,
# and the three shares, as "TVD a b c".
tvd() {
	local a b c
	a=$(share "$1" seg_a) b=$(share "$1" seg_b) c=$(share "$1" seg_c)
	awk -v a="${a:-0}" -v b="${b:-0}" -v c="${c:-0}" 'function abs(x) { return x < 0 ? -x : x }
		BEGIN { printf "%.1f %d %d %d\n", (abs(a - 50) + abs(b - 100 / 3) + abs(c - 100 / 6)) / 2, a, b, c }'
}

start_bg taskset -c "$CPU" "$LUAJIT" "$WL/alias.lua" "$HZ" $((SECS + 8))
PID=$BGPID
sleep 1
# Both profilers watch the same run, each with its own timers.
# Folded stacks: each segment's time includes the clock_gettime it spins
# on (a C frame of its own on top of it since issue 26), so a segment's
# share is its Lua frame's, C frames above it included.
"$PROF" -p "$PID" -d "$SECS" -F "$HZ" -f folded -o "$TMP/jitter.folded" 2>"$TMP/jitter.err" &
W1=$!
LUABPFPROF_NO_JITTER=1 "$PROF" -p "$PID" -d "$SECS" -F "$HZ" -f folded -o "$TMP/fixed.folded" \
	2>"$TMP/fixed.err" &
W2=$!
wait $W1 $W2
cleanup_children

# lua_leaf_shares FOLDED: " N%  FUNCTION" per top Lua function (the last
# alias.lua frame of each stack), as --jp f prints them, for share().
lua_leaf_shares() {
	awk '{ n = $NF; k = split($1, f, ";"); name = "[other]"
		for (i = k; i > 0; i--) if (f[i] ~ /^alias\.lua:/) { name = f[i]; sub(/^alias\.lua:/, "", name); break }
		sum[name] += n; total += n }
	END { for (m in sum) printf "%2d%%  %s\n", total ? int(100 * sum[m] / total + 0.5) : 0, m }' "$1" |
		sort -r
}
lua_leaf_shares "$TMP/jitter.folded" >"$TMP/jitter.txt"
lua_leaf_shares "$TMP/fixed.folded" >"$TMP/fixed.txt"

n=$(sed -n 's/^luabpfprof: \([0-9][0-9]*\) samples in .*/\1/p' "$TMP/jitter.err")
# ~5000 samples on an idle machine.  Below 200 (a starved target) the
# distance's noise nears what aliasing gives: say so rather than guess.
if [ "${n:-0}" -ge 200 ]; then pass "aliasing: enough samples ($n)"
else fail "aliasing: enough samples" "only '${n}': $(cat "$TMP/jitter.err")"; fi

# Sampling noise of the distance (half the sum of three share errors):
# about 250 / sqrt(n) points at 3.5 sigma, at least 7.  Aliasing on one
# CPU gives 50 or more.
tol=$(awk -v n="${n:-1}" 'BEGIN { t = 250 / sqrt(n); printf "%.1f", t < 7 ? 7 : t }')
read -r d a b c < <(tvd "$TMP/jitter.txt")
margin "aliasing: distance from the split 50/33/17" "$d" 0 "$tol"
if awk -v d="$d" -v t="$tol" 'BEGIN { exit !(d <= t) }'; then
	pass "aliasing: a program in phase with -F is measured at its split (seg_a/b/c $a/$b/$c, truth 50/33/17, distance $d <= $tol)"
else
	fail "aliasing: jittered period" "seg_a/b/c $a/$b/$c, truth 50/33/17, distance $d > $tol; report: $(tr '\n' '|' <"$TMP/jitter.txt")"
fi
tc=$(awk -v n="${n:-1}" 'BEGIN { t = 3.5 * 100 * sqrt(0.14 / n) + 1; t = int(t) + 1; print t < 5 ? 5 : t }')
check_share "aliasing: seg_c (1/6 of each round) is seen" "$TMP/jitter.txt" seg_c 17 "$tc"

read -r d a b c < <(tvd "$TMP/fixed.txt")
if awk -v d="$d" 'BEGIN { exit !(d >= 25) }'; then
	pass "aliasing: without the jitter the same run aliases (seg_a/b/c $a/$b/$c, distance $d): the test can fail"
else
	fail "aliasing: without the jitter" "seg_a/b/c $a/$b/$c, distance $d < 25: the workload no longer locks in phase, so the check above proves nothing; report: $(tr '\n' '|' <"$TMP/fixed.txt")"
fi
