#!/bin/bash
# SPDX-License-Identifier: MIT
# The sanitizer build (ASan + UBSan, `make SANITIZE=1`: any report is fatal)
# on every reader and writer, in an output tree of its own (.output-asan:
# the normal .output build and ./luabpfprof are never touched):
#   - every unit test (user/*/test_*.c);
#   - the fuzz targets (clang, libFuzzer) replaying their seed corpus of
#     real process snapshots once each: the symbolizer, VM reading, heap
#     walk and dump, native unwinding;
#   - luabpfprof itself on a live LuaJIT process, through every writer:
#     the jit.p views, --tree, folded, SVG, pprof, speedscope, OTLP, the
#     heap census, dump's text and JSON, top's table is unit-tested.
# Leak reports are off: they are not memory errors, and a one-shot run
# frees at exit.  About 3 minutes of CPU from a clean tree, seconds after.
source "$(dirname "$0")/lib.sh"
trap 'cleanup_children; rm -rf "$TMP"' EXIT

SAN=$TOP/.output-asan
ASAN_PROF=$SAN/luabpfprof
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=0:halt_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

if ! make -s -C "$TOP" OUT="$SAN" BIN="$ASAN_PROF" SANITIZE=1 -j2 "$ASAN_PROF" unit \
	>"$TMP/build.log" 2>&1; then
	fail "sanitizer build" "$(grep -m3 -E 'error|Error' "$TMP/build.log")"
	exit 0
fi
pass "sanitizer build into .output-asan"

# san_clean NAME LOG RC: the run exited 0 and no sanitizer spoke.
san_clean() {
	local report
	report=$(grep -m1 -E 'ERROR: AddressSanitizer|runtime error:|ERROR: UndefinedBehaviorSanitizer' "$2")
	check "$1: exit 0 ($3), no sanitizer report${report:+ ($report)}" \
		bash -c "[ $3 -eq 0 ] && [ -z \"\$1\" ]" _ "$report"
}

# --- unit tests -------------------------------------------------------------------------
bad=0 n=0
for t in "$SAN"/tests/test_*; do
	n=$((n + 1))
	if ! "$t" >"$TMP/unit.log" 2>&1 || grep -qE 'AddressSanitizer|runtime error:' "$TMP/unit.log"; then
		bad=$((bad + 1))
		fail "unit under ASan/UBSan: $(basename "$t")" "$(grep -m1 -E 'FAIL|ERROR|runtime error' "$TMP/unit.log")"
	fi
done
check "unit tests under ASan/UBSan: $((n - bad)) of $n clean" [ "$bad" -eq 0 ]

# --- the fuzz targets on their seeds ------------------------------------------------------
if command -v clang >/dev/null && make -s -C "$TOP" OUT="$SAN" BIN="$ASAN_PROF" -j2 fuzz-build \
	>"$TMP/fuzz.log" 2>&1; then
	for bin in "$SAN"/fuzz/fuzz_*; do
		[ -x "$bin" ] || continue
		"$bin" -runs=0 -rss_limit_mb=2048 "$TOP"/tests/fuzz/corpus/* >"$TMP/f.log" 2>&1
		san_clean "$(basename "$bin") replays $(ls "$TOP"/tests/fuzz/corpus | wc -l) seeds" "$TMP/f.log" $?
	done
else
	echo "SKIP: fuzz targets: no clang or libFuzzer ($(tail -1 "$TMP/fuzz.log" 2>/dev/null))"
fi

# --- every writer, on a live process ---------------------------------------------------
start_bg "$LUAJIT" "$WL/w631.lua" 120
W=$BGPID
wait_lua "$W"
for mode in f F l v z; do
	"$ASAN_PROF" -p "$W" -d 0.5 --jp "$mode" >"$TMP/jp.out" 2>"$TMP/jp.err"
	san_clean "--jp $mode" "$TMP/jp.err" $?
done
"$ASAN_PROF" -p "$W" -d 0.5 --tree >/dev/null 2>"$TMP/tree.err"
san_clean "--tree" "$TMP/tree.err" $?
for ext in folded svg pb.gz speedscope.json otlp; do
	"$ASAN_PROF" -p "$W" -d 0.5 -o "$TMP/out.$ext" 2>"$TMP/$ext.err"
	rc=$?
	[ -s "$TMP/out.$ext" ] || rc=1
	san_clean "-o out.$ext" "$TMP/$ext.err" $rc
done
"$ASAN_PROF" --heap -p "$W" >/dev/null 2>"$TMP/heap.err"
san_clean "--heap" "$TMP/heap.err" $?
"$ASAN_PROF" --heap -p "$W" -o "$TMP/heap.pb.gz" 2>"$TMP/heappb.err"
san_clean "--heap -o heap.pb.gz" "$TMP/heappb.err" $?
"$ASAN_PROF" dump -p "$W" --locals >/dev/null 2>"$TMP/dump.err"
san_clean "dump --locals" "$TMP/dump.err" $?
"$ASAN_PROF" dump -p "$W" --locals --json >/dev/null 2>"$TMP/dumpj.err"
san_clean "dump --locals --json" "$TMP/dumpj.err" $?
kill "$W" 2>/dev/null
