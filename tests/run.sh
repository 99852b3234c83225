#!/bin/bash
# Runs the whole suite: unit programs, then the shell tests.  Every test
# prints "PASS: name" or "FAIL: name: why" ("SKIP: name: why" for what
# this machine cannot run); the last line is the tally.
set -u
cd "$(dirname "$0")/.."
export TOP=$PWD

only=${1:-}
passed=0 failed=0 skipped=0
log=$(mktemp /tmp/lbp-run.XXXXXX)

run_one() {
	local label=$1; shift
	local rc start=$SECONDS
	"$@" >"$log" 2>&1
	rc=$?
	cat "$log"
	echo "time: $label $((SECONDS - start)) s"
	local p f
	p=$(grep -c '^PASS: ' "$log")
	f=$(grep -c '^FAIL: ' "$log")
	skipped=$((skipped + $(grep -c '^SKIP: ' "$log")))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL: $label: exited $rc without reporting a failure"
		f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
}

for bin in .output/tests/test_*; do
	[ -x "$bin" ] || continue
	[ -n "$only" ] && [[ $bin != *"$only"* ]] && continue
	echo "== $bin"
	run_one "$bin" "$bin"
done
for t in tests/t_*.sh; do
	[ -f "$t" ] || continue
	[ -n "$only" ] && [[ $t != *"$only"* ]] && continue
	echo "== $t"
	run_one "$t" bash "$t"
done
rm -f "$log"
echo "time: the whole suite $SECONDS s"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
