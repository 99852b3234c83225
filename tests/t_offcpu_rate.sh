#!/bin/bash
# Sampled off-CPU time (--off-cpu-rate, bpf/offcpu.bpf.h) against ground
# truth measured in-process: offcpu_rate.lua blocks thousands of times a
# second, alternately in short() (usleep 100 us) and long() (300 us), and
# times both parts.  For a fixed rate 0.25, the automatic rate (default:
# it samples above 1000 switches a second per CPU) and 1 (every switch):
#   - the summary's kept/seen ratio is the rate (0.25 +- 0.03; auto walks
#     fewer than 60%; 1 walks all);
#   - each kept block weighed by its inverse rate, the blocked time of
#     short+long is within 10% of the in-process time (which also holds
#     the loop's own CPU time, a few percent) and long's share within 5
#     points: the estimate is unbiased, not just proportional.
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

# unbiased NAME: the weighed estimates against the in-process truth.
unbiased() {
	local b=$TMP/$1 est ts tl
	est=$(estimate "$1")
	ts=$(truth "$b.out" short)
	tl=$(truth "$b.out" long)
	check "$1: short+long blocked $est s against $ts + $tl s in-process, within 10%" \
		awk -v e="$est" -v s="$ts" -v l="$tl" 'BEGIN { split(e, x, " "); g = x[1] + x[2]; w = s + l
			exit !(g >= 0.9 * w && g <= 1.1 * w) }'
	TOL=5 within "$1: long's share of the blocked time" \
		"$(awk -v e="$est" 'BEGIN { split(e, x, " "); printf "%.1f", 100 * x[2] / (x[1] + x[2]) }')" \
		"$(pct "$tl" "$(awk -v a="$ts" -v b="$tl" 'BEGIN { print a + b }')")"
}

if run fixed 0.25; then
	read -r kept seen < <(kept_seen fixed)
	check "fixed 0.25: walked ${kept:-?} of ${seen:-?} switches (0.25 +- 0.03)" \
		awk -v k="${kept:-0}" -v s="${seen:-0}" 'BEGIN { exit !(s > 3000 && k / s > 0.22 && k / s < 0.28) }'
	unbiased fixed
fi

if run auto auto; then
	read -r kept seen < <(kept_seen auto)
	check "auto: samples above its budget (walked ${kept:-?} of ${seen:-?})" \
		awk -v k="${kept:-0}" -v s="${seen:-0}" 'BEGIN { exit !(s > 3000 && k > 300 && k < 0.6 * s) }'
	unbiased auto
fi

if run all 1; then
	check "rate 1: every switch walked, no estimate on the summary line" \
		bash -c "grep -q 'switches out (0 under --min-block' '$TMP/all.err' &&
			 ! grep -q 'seen walked' '$TMP/all.err'"
	unbiased all
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
