#!/bin/bash
# SPDX-License-Identifier: MIT
# Functions a trace inlined without a snapshot of their own are said, never
# split (issue 26, item 6).  Nothing in such a trace's machine code tells
# their time from the frame around them; the note names them, from the
# trace's function constants minus its snapshots' frames.  On Debian's 2.1
# and OpenResty's luajit2, GC64 and not:
# - jit_nosnap.lua: sq (pure float arithmetic) is inlined without a
#   snapshot, pick (a table load and a branch: guards) with snapshots: the
#   notes name exactly sq, never pick;
# - LuaJIT's bench collection: spectral-norm's notes name exactly A,
#   md5's name tr_f, tr_g, tr_h and tr_i and nothing but them and
#   transform (called from md5's loop, only computing);
# and, on one build, the same names in pprof's inlined_no_snapshot label
# and in the SVG's tooltip of the frame the time is counted in.
set -u
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/jitbench.sh"
trap 'cleanup_children; [ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT

HZ=997
BUILDS=()
for v in luajit-deb luajit-deb-nogc64 luajit2 luajit2-nogc64; do
	[ -x "$TOP/.deps/$v/usr/bin/luajit" ] && BUILDS+=("$v")
done
[ ${#BUILDS[@]} -eq 4 ] || fail "builds" "found ${BUILDS[*]} in .deps/ (want 4)"

# notes ERRFILE: the names the notes give, one a line, sorted, unique.
notes() {
	sed -n 's/^luabpfprof: note: trace [0-9]*\( ([^)]*)\)\? inlined \(.*\) without a snapshot: .*/\2/p' \
		"$1" | tr ',' '\n' | sed 's/^ *//' | sort -u
}

# run OUT LUAJIT DIR SCRIPT ARGS...: our view of a fresh run, notes in OUT.err.
run() {
	local out=$1 lj=$2 dir=$3; shift 3
	(cd "$dir" && "$PROF" -F "$HZ" --lua-only --jp F -o "$out" -- "$lj" "$@" \
		>/dev/null 2>"$out.err")
}

# names_are NAME ERRFILE WANT...: the notes name exactly WANT.
names_are() {
	local name=$1 err=$2; shift 2
	local got want
	got=$(notes "$err" | tr '\n' ' ')
	want=$(printf '%s\n' "$@" | sort -u | tr '\n' ' ')
	if [ "$got" = "$want" ]; then pass "$name: the notes name ${got% }"
	else fail "$name" "notes name '${got}', want '${want}': $(grep note "$err" | tr '\n' '|')"; fi
}

if [ ! -f "$JB_TARBALL" ]; then
	skip_runtimes "jit_nosnap: spectral-norm and md5 of LuaJIT's bench collection" "$JB_GLOB"
else
	jb_unpack "$TMP/jb" 2>/dev/null || fail "bench collection" "cannot unpack $JB_TARBALL"
fi
for v in "${BUILDS[@]}"; do
	lj=$TOP/.deps/$v/usr/bin/luajit
	run "$TMP/own-$v.txt" "$lj" "$WL" jit_nosnap.lua 1
	names_are "jit_nosnap $v" "$TMP/own-$v.txt.err" jit_nosnap.lua:sq
	[ -n "${JB_DIR:-}" ] || continue
	run "$TMP/sn-$v.txt" "$lj" "$JB_DIR" spectral-norm.lua 1500
	names_are "spectral-norm $v" "$TMP/sn-$v.txt.err" spectral-norm.lua:A
	run "$TMP/md5-$v.txt" "$lj" "$JB_DIR" md5.lua 6000
	got=$(notes "$TMP/md5-$v.txt.err" | tr '\n' ' ')
	extra=$(notes "$TMP/md5-$v.txt.err" | grep -cvE '^md5\.lua:(tr_[fghi]|transform)$')
	if [ "$extra" -eq 0 ] && [ "$(notes "$TMP/md5-$v.txt.err" | grep -c '^md5\.lua:tr_[fghi]$')" -eq 4 ]
	then pass "md5 $v: the notes name ${got% }"
	else fail "md5 $v" "notes name '${got}', want tr_f..tr_i (and transform): $(grep note "$TMP/md5-$v.txt.err" | tr '\n' '|')"; fi
done

# pprof's label and the SVG's tooltip carry the same names.
lj=$TOP/.deps/luajit-deb/usr/bin/luajit
(cd "$WL" && "$PROF" -F "$HZ" --lua-only -o "$TMP/own.pb.gz" -- "$lj" jit_nosnap.lua 1 \
	>/dev/null 2>&1)
if command -v go >/dev/null 2>&1; then
	go tool pprof -tags "$TMP/own.pb.gz" >"$TMP/tags.txt" 2>/dev/null
	if grep -q 'inlined_no_snapshot' "$TMP/tags.txt" &&
	   awk '/inlined_no_snapshot/ { f = 1; next } f && /^ *[a-z_]+:/ { f = 0 } f' "$TMP/tags.txt" |
	   grep -q 'jit_nosnap.lua:sq'; then
		pass "pprof: inlined_no_snapshot names jit_nosnap.lua:sq"
	else
		fail "pprof label" "$(tr '\n' '|' <"$TMP/tags.txt")"
	fi
else
	echo "SKIP: pprof label: no go tool here"
fi
(cd "$WL" && "$PROF" -F "$HZ" --lua-only -o "$TMP/own.svg" -- "$lj" jit_nosnap.lua 1 \
	>/dev/null 2>&1)
n=$(grep -c 'includes, inlined without a snapshot: jit_nosnap.lua:sq' "$TMP/own.svg")
other=$(grep -o 'inlined without a snapshot: [^<]*' "$TMP/own.svg" | grep -vc ': jit_nosnap.lua:sq$')
check "svg: frames holding sq's time say so ($n), no other name ($other)" \
	test "$n" -ge 1 -a "$other" -eq 0
