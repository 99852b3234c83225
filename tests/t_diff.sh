#!/bin/bash
# SPDX-License-Identifier: MIT
# luabpfprof diff end to end, on real LuaJIT runs with a change known by
# construction (tests/workloads/diff_work.lua: render's share of a fixed
# amount of work moves from 20% to 30%, rest's from 65% to 55%, other stays
# 15%; each share measured in-process with os.clock):
# - the text view reports render's change within 2 points of the measured
#   one and marks other as noise;
# - the gate exits 3 on the changed pair, naming the render rule only, and
#   0 on two pairs of same-code runs (the 20 pairs of the acceptance are
#   model/test_diff_stats.c's, on synthetic counts);
# - the differential SVG in headless Chromium: render red, other neutral;
#   difffolded lines; go tool pprof -diff_base reads the pair;
# - a directory of profiles merged, and two windows of one directory;
# - heap diff: a program leaking into _G.sessions has that path first;
# - bad input: one line, exit 1 or 2, never a hang on a FIFO.
#
# Sizes: a run is 6 CPU seconds at 2999 Hz, ~18000 samples.  The change's
# standard error is sqrt(.2*.8/18000 + .3*.7/18000) = 0.45 points, so the
# 2 points allowed are 4.4 standard errors.  The gate's rules need more
# than +5 points (11 standard errors beyond a same-code pair's 0) or +10%
# of total CPU (fixed work: the same CPU time whatever the load; 18000
# samples have a relative error of 0.75%, 13 of them in 10%).
set -u
source "$(dirname "$0")/lib.sh"
trap 'cleanup_children; [ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT

HZ=2999
CPU_SECS=6
UNITS=10000000	# per round: 23 ms here
DW=$WL/diff_work.lua

cost=$("$LUAJIT" "$DW" calibrate)
rounds=$(awk -v c="$cost" -v u=$UNITS -v s=$CPU_SECS 'BEGIN { printf "%d", s / (c * u) + 1 }')

# run NAME RENDER OTHER REST: one profiled run of fixed work, shares in
# percent of UNITS; the profile is $TMP/NAME.pb.gz, the truth $TMP/NAME.truth.
run() {
	local name=$1 r=$(($2 * UNITS / 100)) o=$(($3 * UNITS / 100)) s=$(($4 * UNITS / 100))
	if "$PROF" -F $HZ -o "$TMP/$name.pb.gz" -- "$LUAJIT" "$DW" $r $o $s "$rounds" \
		"$TMP/$name.truth" 2>"$TMP/$name.err" && [ -s "$TMP/$name.truth" ]; then
		pass "run $name ($(tail -1 "$TMP/$name.err"))"
	else
		fail "run $name" "$(tr '\n' '|' < "$TMP/$name.err")"
	fi
}

truth() { awk -v k="$2" '$1 == k { printf "%.2f", 100 * $2 }' "$TMP/$1.truth"; }

# row FILE KEY: "change lo hi noise?" of KEY in a diff's text.
row() {
	awk -v k="$2" '!/^#/ && $NF == k {
		gsub(/[][,]/, " "); n = split($0, f, " ")
		print f[1], f[2], f[3], (f[4] == "noise" ? "noise" : "significant"); exit }' "$1"
}

run base1 20 15 65
t_mid=$(date +%s)	# after base1 started, before new does: the windows' cut
run new 30 15 55
run base2 20 15 65
run base3 20 15 65

# --- the text view against the measured truth
"$PROF" diff "$TMP/base1.pb.gz" "$TMP/new.pb.gz" >"$TMP/diff.txt" 2>"$TMP/diff.err"
check "diff: exit 0 without rules" test $? -eq 0
want=$(awk -v a="$(truth base1 render)" -v b="$(truth new render)" 'BEGIN { printf "%.2f", b - a }')
read -r d lo hi sig <<<"$(row "$TMP/diff.txt" diff_work.lua:render)"
if awk -v d="${d:-x}" -v w="$want" 'BEGIN { x = d - w; exit !(d != "x" && x <= 2 && -x <= 2) }'; then
	pass "render's change within 2 points of the truth (diff $d [$lo, $hi], truth $want)"
else
	fail "render's change within 2 points of the truth" "diff '$d' truth $want: $(tr '\n' '|' < "$TMP/diff.txt")"
fi
check "render's change is significant" test "${sig:-}" = significant
read -r d lo hi sig <<<"$(row "$TMP/diff.txt" diff_work.lua:other)"
check "other (unchanged, $(truth base1 other)% -> $(truth new other)%) is noise ($d [$lo, $hi])" \
	test "${sig:-}" = noise

# --- the gate
gate() {
	"$PROF" diff "$1" "$2" --fail-if 'F:diff_work.lua:render > +5' \
		--fail-if 'total-cpu > +10%' >/dev/null 2>"$TMP/gate.err"
}
gate "$TMP/base1.pb.gz" "$TMP/new.pb.gz"
rc=$?
check "gate: the changed pair exits 3 (got $rc)" test $rc -eq 3
check "gate: one line, for the render rule" test "$(grep -c 'broken' "$TMP/gate.err")" -eq 1 -a \
	"$(grep -c "render > +5' broken" "$TMP/gate.err")" -eq 1
for pair in "base1 base2" "base2 base3"; do
	set -- $pair
	gate "$TMP/$1.pb.gz" "$TMP/$2.pb.gz"
	rc=$?
	check "gate: same code, $1 against $2, exits 0 (got $rc: $(tr '\n' '|' < "$TMP/gate.err"))" \
		test $rc -eq 0
done
"$PROF" diff "$TMP/base1.pb.gz" "$TMP/new.pb.gz" --fail-if 'F:no.lua:such > +1' \
	>/dev/null 2>"$TMP/nokey.err"
rc=$?
check "gate: a key in neither profile is an error, not a pass (exit $rc)" \
	test $rc -eq 1 -a "$(grep -c "no key" "$TMP/nokey.err")" -eq 1
"$PROF" diff "$TMP/base1.pb.gz" "$TMP/new.pb.gz" --fail-if 'F:x > five' 2>"$TMP/badrule.err" >/dev/null
rc=$?
check "gate: a bad rule is one line and exit 2 (exit $rc)" \
	test $rc -eq 2 -a "$(wc -l < "$TMP/badrule.err")" -eq 1

# --- the differential flame graph, difffolded lines, the pprof pair
"$PROF" diff "$TMP/base1.pb.gz" "$TMP/new.pb.gz" -o "$TMP/diff.svg" 2>"$TMP/svg.err"
check "svg: written (exit $?)" test -s "$TMP/diff.svg"
check "svg: xmllint accepts it" xmllint --noout "$TMP/diff.svg"
(cd "$TOP/tests/node" && node check_diff_svg.js "$TMP/diff.svg" diff_work.lua:render \
	diff_work.lua:other)
"$PROF" diff "$TMP/base1.pb.gz" "$TMP/new.pb.gz" -f folded >"$TMP/diff.folded"
# render's line: BASE scaled to NEW's total, then NEW: 30% against 20%.
check "folded: render's stack grew by about half ($(grep 'diff_work.lua:render ' "$TMP/diff.folded"))" \
	awk '/diff_work.lua:render [0-9]+ [0-9]+$/ { b += $(NF-1); n += $NF }
	     END { exit !(b > 0 && n / b > 1.35 && n / b < 1.65) }' "$TMP/diff.folded"
check "folded: every line is 'stack BASE NEW'" \
	awk 'NF < 3 || $(NF-1) !~ /^[0-9]+$/ || $NF !~ /^[0-9]+$/ { bad = 1 } END { exit bad }' \
	"$TMP/diff.folded"
if command -v go >/dev/null; then
	go tool pprof -top -diff_base "$TMP/base1.pb.gz" "$TMP/new.pb.gz" >"$TMP/pprof.top" 2>&1
	# -diff_base subtracts BASE: render is the largest positive flat.
	check "go tool pprof -diff_base reads the pair: render grew ($(grep -m1 'render' "$TMP/pprof.top"))" \
		awk '/diff_work.lua:render/ && $1 + 0 > 0 { ok = 1 } END { exit !ok }' "$TMP/pprof.top"
else
	echo "SKIP: go tool pprof -diff_base: no go (golang-go, tests/deps/apt.agent)"
fi

# --- several files a side: a directory merged; two windows of one directory
mkdir -p "$TMP/basedir" "$TMP/windows"
cp "$TMP/base2.pb.gz" "$TMP/base3.pb.gz" "$TMP/basedir/"
"$PROF" diff "$TMP/basedir" "$TMP/new.pb.gz" >"$TMP/dir.txt" 2>&1
check "directory: both files merged" grep -q "^# BASE .*basedir: [0-9]* samples, 2 profiles" "$TMP/dir.txt"
read -r d lo hi sig <<<"$(row "$TMP/dir.txt" diff_work.lua:render)"
check "directory: NEW's render is about 10 points above the merged BASE ($d)" \
	awk -v d="${d:-0}" 'BEGIN { exit !(d > 7 && d < 13) }'
# --per-second divides by duration: how much of a CPU each key used, which
# the machine's load moves from run to run, so only its form is checked
# here (and that a profile against itself changes nothing).
"$PROF" diff --per-second "$TMP/base1.pb.gz" "$TMP/base1.pb.gz" >"$TMP/rate.txt" 2>&1
check "--per-second: shares of one CPU's time, nothing changed against itself" \
	awk '/share of one CPU/ { h = 1 } !/^#/ && $1 ~ /^[+-][0-9]/ { n++; if ($1 + 0 != 0) bad = 1 }
	     /diff_work.lua:render$/ { r = 1 } END { exit !(h && r && n && !bad) }' "$TMP/rate.txt"
# The merged side as one pprof file, beside NEW's: the pair pprof reads,
# and diff reads back to the same table.
"$PROF" diff "$TMP/basedir" "$TMP/new.pb.gz" -o "$TMP/pair.pb.gz" 2>"$TMP/pair.err"
check "pprof pair: written (NEW and BASE beside it)" test -s "$TMP/pair.pb.gz" -a -s "$TMP/pair.base.pb.gz"
"$PROF" diff "$TMP/pair.base.pb.gz" "$TMP/pair.pb.gz" >"$TMP/pair.txt" 2>&1
check "pprof pair: read back, the same rows" \
	cmp <(grep -v '^#' "$TMP/dir.txt") <(grep -v '^#' "$TMP/pair.txt")
if command -v go >/dev/null; then
	# BASE is two runs: -normalize scales it to NEW's total first.
	go tool pprof -top -normalize -diff_base "$TMP/pair.base.pb.gz" "$TMP/pair.pb.gz" \
		>"$TMP/pair.top" 2>&1
	check "pprof pair: go tool pprof -diff_base reads it, render grew" \
		awk '/diff_work.lua:render/ && $1 + 0 > 0 { ok = 1 } END { exit !ok }' "$TMP/pair.top"
fi
cp "$TMP/base1.pb.gz" "$TMP/new.pb.gz" "$TMP/base2.pb.gz" "$TMP/windows/"
"$PROF" diff "$TMP/windows" --base-window "0,$t_mid" --new-window "$t_mid,$((t_mid + 3600))" \
	>"$TMP/win.txt" 2>&1
check "windows: BASE is base1 alone" grep -q "^# BASE .*: [0-9]* samples, 1 profile," "$TMP/win.txt"
check "windows: NEW is new and base2" grep -q "^# NEW .*: [0-9]* samples, 2 profiles," "$TMP/win.txt"

# --- heap diff: two censuses of a program that leaks into _G.sessions
start_bg "$LUAJIT" "$WL/heap_leak.lua" 200 >"$TMP/leak.target"
leak=$BGPID
if wait_lua "$leak" && wait_for "$TMP/leak.target" ready 20; then
	"$PROF" --heap -p "$leak" -o "$TMP/a.heap.pb.gz" 2>"$TMP/heap_a.err"
	sleep 2
	"$PROF" --heap -p "$leak" -o "$TMP/b.heap.pb.gz" 2>"$TMP/heap_b.err"
	"$PROF" diff "$TMP/a.heap.pb.gz" "$TMP/b.heap.pb.gz" >"$TMP/heap.txt" 2>&1
	top=$(awk '!/^#/ && $1 ~ /^[+-][0-9]+$/ { print $NF; exit }' "$TMP/heap.txt")
	check "heap diff: the leaking table's path is first ($top)" eval '[[ $top == _G.sessions\[\*\]* ]]'
	grown=$(awk '!/^#/ && $1 ~ /^[+-][0-9]+$/ { print $1 + 0; exit }' "$TMP/heap.txt")
	# 200 records a second of ~1 KiB for 2 s or more: at least 200 KiB.
	check "heap diff: it grew by at least 200 KiB ($grown B)" test "${grown:-0}" -ge 204800
	"$PROF" diff "$TMP/a.heap.pb.gz" "$TMP/new.pb.gz" >/dev/null 2>"$TMP/mixed.err"
	check "heap diff: a heap against a CPU profile is refused" grep -q "both heap" "$TMP/mixed.err"
else
	fail "heap diff: the leaking program" "did not start: $(head -c 300 "$TMP/leak.target")"
fi
kill "$leak" 2>/dev/null

# --- bad input: one line, a nonzero exit, no hang
bad() {
	local name=$1 rc; shift
	timeout 10 "$PROF" diff "$@" >/dev/null 2>"$TMP/bad.err"
	rc=$?
	if [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ "$(wc -l < "$TMP/bad.err")" -eq 1 ]; then
		pass "bad input: $name (exit $rc: $(cat "$TMP/bad.err"))"
	else
		fail "bad input: $name" "exit $rc: $(tr '\n' '|' < "$TMP/bad.err")"
	fi
}
head -c 3000 /dev/urandom >"$TMP/junk.pb.gz"
head -c 200 "$TMP/base1.pb.gz" >"$TMP/cut.pb.gz"
printf 'a;b 3\nc;d\n' >"$TMP/bad.folded"
mkfifo "$TMP/fifo"
ln -s "$TMP/base1.pb.gz" "$TMP/link.pb.gz"
printf 'luajit;x.lua:f 10\n' >"$TMP/a.folded"
bad "random bytes" "$TMP/junk.pb.gz" "$TMP/new.pb.gz"
bad "a truncated gzip" "$TMP/cut.pb.gz" "$TMP/new.pb.gz"
bad "a folded line without a count" "$TMP/bad.folded" "$TMP/new.pb.gz"
bad "a FIFO" "$TMP/fifo" "$TMP/new.pb.gz"
bad "a symlink" "$TMP/link.pb.gz" "$TMP/new.pb.gz"
bad "a missing file" "$TMP/none.pb.gz" "$TMP/new.pb.gz"
bad "one operand" "$TMP/new.pb.gz"
bad "-p with diff" "$TMP/base1.pb.gz" "$TMP/new.pb.gz" -p 1
bad "'l' on folded stacks" --jp l "$TMP/a.folded" "$TMP/a.folded"
bad "--per-second on folded stacks" --per-second "$TMP/a.folded" "$TMP/a.folded"
bad "an empty directory" "$(mkdir -p "$TMP/empty" && echo "$TMP/empty")" "$TMP/new.pb.gz"
