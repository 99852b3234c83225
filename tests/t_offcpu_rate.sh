#!/bin/bash
# SPDX-License-Identifier: MIT
# Sampled off-CPU time (--off-cpu-rate, bpf/offcpu.bpf.h) against ground
# truth measured in-process: offcpu_rate.lua blocks thousands of times a
# second, alternately in short() (usleep 100 us) and long() (300 us), and
# times both parts.  For a fixed rate 0.25, the automatic rate (default:
# it samples above 1000 switches a second per CPU) and 1 (every switch):
#   - the summary's kept/seen ratio is the rate (0.25 +- 0.03; auto walks
#     fewer than 60%; 1 walks all);
#   - each kept block weighed by its inverse rate, the blocked time of
#     short+long over the in-process time (which also holds the loop's own
#     CPU time, a few percent) is the ratio every switch walked gives,
#     within 10 points, and long's share within 5 points: the estimate is
#     unbiased, not just proportional.
# Bad --off-cpu-rate values are one line and exit 2.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
source "$TOP/tests/truth.sh"

SECS=3

# run NAME RATE: offcpu_rate.lua -joff under -e off-cpu --off-cpu-rate RATE.
run() {
	local b=$TMP/$1
	"$PROF" -e off-cpu --off-cpu-rate "$2" -f folded -o "$b.folded" -- \
		"$LUAJIT" -joff "$WL/offcpu_rate.lua" "$SECS" >"$b.out" 2>"$b.err"
	if [ -z "$(truth "$b.out" long)" ] || [ ! -s "$b.folded" ]; then
		fail "$1 runs" "no profile or no truth: $(tr '\n' '|' < "$b.err" | head -c 400)"
		return 1
	fi
}

# estimate NAME: "SHORT_S LONG_S" from the folded profile.
estimate() {
	awk '/:short;usleep [0-9]+$/ { s += $NF } /:long;usleep [0-9]+$/ { l += $NF }
		END { printf "%.4f %.4f\n", s / 1e9, l / 1e9 }' "$TMP/$1.folded"
}

# kept_seen NAME: "KEPT SEEN" from the summary line.
kept_seen() {
	sed -nE 's/.*switches out \(--off-cpu-rate [^:]+: ([0-9]+) of ([0-9]+) seen walked.*/\1 \2/p' \
		"$TMP/$1.err"
}

# ratio NAME: the estimate of short+long blocked time over the in-process
# time of both (which also holds the loop's CPU time and any wait for a
# CPU after a wake-up: a few percent, more on a loaded machine).
ratio() {
	local b=$TMP/$1
	awk -v e="$(estimate "$1")" -v s="$(truth "$b.out" short)" -v l="$(truth "$b.out" long)" \
		'BEGIN { split(e, x, " "); printf "%.3f\n", (s + l > 0) ? (x[1] + x[2]) / (s + l) : 0 }'
}

# unbiased NAME LO HI: the weighed estimate's ratio to the in-process time
# within [LO, HI], and long's share of the blocked time within 5 points.
unbiased() {
	local b=$TMP/$1 est ts tl r
	est=$(estimate "$1")
	ts=$(truth "$b.out" short)
	tl=$(truth "$b.out" long)
	r=$(ratio "$1")
	# [lo, hi] is mid +- half
	margin "$1: blocked time estimate / in-process" "$r" \
		"$(awk -v lo="$2" -v hi="$3" 'BEGIN { printf "%.3f", (lo + hi) / 2 }')" \
		"$(awk -v lo="$2" -v hi="$3" 'BEGIN { printf "%.3f", (hi - lo) / 2 }')"
	check "$1: short+long blocked $est s against $ts + $tl s in-process: ratio $r in [$2, $3]" \
		awk -v r="$r" -v lo="$2" -v hi="$3" 'BEGIN { exit !(r >= lo && r <= hi) }'
	TOL=5 within "$1: long's share of the blocked time" \
		"$(awk -v e="$est" 'BEGIN { split(e, x, " "); printf "%.1f", 100 * x[2] / (x[1] + x[2]) }')" \
		"$(pct "$tl" "$(awk -v a="$ts" -v b="$tl" 'BEGIN { print a + b }')")"
}

# Every switch walked first: its ratio to the in-process time is what a
# sampled rate must match (unbiased: the same ratio within sampling noise,
# 10 points: 1 in 4 of ~8000 blocks gives about 2% of standard error, and
# a rare block stretched by preemption, weighed by 4, adds several points;
# a rate not weighed back would give 0.25), whatever the loop's own CPU
# time takes from the truth.
r_all=
if run all 1; then
	check "rate 1: every switch walked, no estimate on the summary line" \
		bash -c "grep -qE 'switches out \([0-9]+ under --min-block' '$TMP/all.err' &&
			 ! grep -q 'seen walked' '$TMP/all.err'"
	unbiased all 0.8 1.1
	r_all=$(ratio all)
fi
lo=$(awk -v r="${r_all:-1}" 'BEGIN { print r - 0.10 }')
hi=$(awk -v r="${r_all:-1}" 'BEGIN { print r + 0.10 }')

if run fixed 0.25; then
	read -r kept seen < <(kept_seen fixed)
	check "fixed 0.25: walked ${kept:-?} of ${seen:-?} switches (0.25 +- 0.03)" \
		awk -v k="${kept:-0}" -v s="${seen:-0}" 'BEGIN { exit !(s > 3000 && k / s > 0.22 && k / s < 0.28) }'
	unbiased fixed "$lo" "$hi"
fi

if run auto auto; then
	read -r kept seen < <(kept_seen auto)
	check "auto: samples above its budget (walked ${kept:-?} of ${seen:-?})" \
		awk -v k="${kept:-0}" -v s="${seen:-0}" 'BEGIN { exit !(s > 3000 && k > 300 && k < 0.6 * s) }'
	unbiased auto "$lo" "$hi"
fi

for bad in 0 1.5 -0.1 1/0 1/ abc 0.5x; do
	"$PROF" -e off-cpu --off-cpu-rate "$bad" -p 1 >"$TMP/bad.out" 2>"$TMP/bad.err"
	rc=$?
	check "--off-cpu-rate '$bad': one line, exit 2 (got $rc)" \
		bash -c "[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/bad.err') -eq 1 ] &&
			 grep -q 'invalid --off-cpu-rate' '$TMP/bad.err'"
done
"$PROF" --off-cpu-rate 0.5 -p 1 >"$TMP/bad.out" 2>"$TMP/bad.err"
rc=$?
check "--off-cpu-rate without an off-CPU event: one line, exit 2 (got $rc)" \
	bash -c "[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/bad.err') -eq 1 ]"
