#!/bin/bash
# SPDX-License-Identifier: MIT
# The suite's scheduler (tests/run.sh) on a folder of its own tests: jobs
# run side by side up to -j, a job that needs the machine runs alone,
# jobs of one lock never overlap, and a hung test (a profile of a
# program that never starts: luabpfprof -- a command blocked on a FIFO)
# is ended at twice its usual time and reported with its processes.
source "$(dirname "$0")/lib.sh"

D=$TMP/tests
mkdir -p "$D"
# job NAME SECONDS: a test that records when it ran and passes.
job() {
	cat >"$D/$1.sh" <<-EOF
	echo "\$(date +%s.%N) start" >>"$TMP/$1.when"
	sleep $2
	echo "\$(date +%s.%N) end" >>"$TMP/$1.when"
	echo "PASS: $1"
	EOF
}
job t_a 2; job t_b 2; job t_alone 1; job t_l1 1; job t_l2 1
mkfifo "$TMP/never"
cat >"$D/t_hang.sh" <<EOF
echo "\$(date +%s.%N) start" >>"$TMP/t_hang.when"
trap 'echo "\$(date +%s.%N) end" >>"$TMP/t_hang.when"; exit 1' TERM
"$PROF" -o "$TMP/hang.txt" -- cat "$TMP/never"
echo "PASS: t_hang"
EOF
cat >"$D/schedule" <<'EOF'
# job usual needs
t_a	5	-
t_b	5	-
t_alone	5	alone
t_l1	5	lock=x
t_l2	5	lock=x
t_hang	4	-
EOF

start=$SECONDS
LBP_TESTDIR=$D bash "$TOP/tests/run.sh" -j 2 >"$TMP/out" 2>&1
rc=$? took=$((SECONDS - start))

# first and last time of a job's .when file
t0() { sed -n 's/ start$//p' "$TMP/$1.when"; }
t1() { sed -n 's/ end$//p' "$TMP/$1.when"; }
overlap() { awk -v a0="$(t0 "$1")" -v a1="$(t1 "$1")" -v b0="$(t0 "$2")" -v b1="$(t1 "$2")" \
	'BEGIN { exit !(a0 < b1 && b0 < a1) }'; }

check "the run fails (a hung job)" [ "$rc" -ne 0 ]
check "the tally: 5 passed, 1 failed" grep -qx '5 passed, 1 failed, 0 skipped' "$TMP/out"
check "t_a and t_b ran side by side" overlap t_a t_b
alone_ok=1
for j in t_a t_b t_l1 t_l2 t_hang; do
	[ -f "$TMP/$j.when" ] && overlap t_alone "$j" && alone_ok=0
done
check "t_alone overlapped no other job" [ "$alone_ok" = 1 ]
if overlap t_l1 t_l2; then fail "jobs of one lock never overlap" "t_l1 and t_l2 did"
else pass "jobs of one lock never overlap"; fi
check "the hang is reported as twice its usual time" \
	grep -q '^FAIL: t_hang: still running after [89] s, twice its usual 4 s: ended' "$TMP/out"
check "the hang's report lists the profiler and the command it waits for" \
	bash -c "grep '^    hang: ' '$TMP/out' | grep -q luabpfprof && grep '^    hang: ' '$TMP/out' | grep -q 'cat $TMP/never'"
if pgrep -f "^cat $TMP/never" >/dev/null; then fail "the hung profiler's command was ended" "cat still runs"
else pass "the hung profiler's command was ended"; fi
# t_hang (4 s usual) is ended at 8 s, plus up to 5 s for SIGTERM; the
# rest is 2 + 1 + 1 + 1 s of sleeps, two at a time.
check "the run took under 20 s ($took)" [ "$took" -lt 20 ]
check "each job's time is printed" grep -q '^time: t_a [0-9]* s (usual 5 s)' "$TMP/out"
grep -q '^FAIL' "$TMP/out" && sed 's/^/    run.sh: /' "$TMP/out" | grep -v '^    run.sh: \(PASS\|time\)' | head -n 20
# A test with no row is refused by name, never silently run.
: >"$D/t_norow.sh"
LBP_TESTDIR=$D bash "$TOP/tests/run.sh" t_norow >"$TMP/out2" 2>&1
check "a test without a schedule row is a failure that names it" \
	grep -q '^FAIL: schedule: t_norow has no row' "$TMP/out2"
rm -rf "$TMP"
exit 0
