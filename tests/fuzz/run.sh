#!/bin/bash
# SPDX-License-Identifier: MIT
# run.sh SECONDS TARGET...: runs each libFuzzer target for SECONDS on a
# working copy of the seed corpus (new inputs stay under .output/fuzz, the
# committed seeds are never touched), then prints one line of figures per
# target.  Exits 1 on a crash, leak, timeout or sanitizer report; the
# reproducer is left in .output/fuzz/.
set -u
secs=$1; shift
cd "$(dirname "$0")/../.."
status=0
for bin in "$@"; do
	name=$(basename "$bin")
	work=.output/fuzz/corpus-$name
	# fuzz_walker's seeds are the walker snapshots (tests/walker).
	seeds=tests/fuzz/corpus
	[ "$name" = fuzz_walker ] && seeds=tests/walker/snapshots
	log=.output/fuzz/$name.log
	mkdir -p "$work"
	"$bin" -max_total_time="$secs" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix=.output/fuzz/"$name"- \
		"$work" "$seeds" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	last=$(grep -E '^#[0-9]+' "$log" | tail -1)
	cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
	ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
	corp=$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<<"$last")
	if [ "$rc" -eq 0 ]; then
		echo "fuzz: $name: ${secs}s, ${execs:-?} runs (${rate:-?}/s), cov ${cov:-?} edges, ft ${ft:-?}, corpus ${corp:-?}: no crash"
	else
		echo "fuzz: $name: FAILED (exit $rc) after ${execs:-?} runs; see $log"
		grep -m3 -E 'ERROR|runtime error|SUMMARY' "$log"
		status=1
	fi
done
exit $status
