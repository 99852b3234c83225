#!/bin/bash
# SPDX-License-Identifier: MIT
# Samples that land in compiled code (issue 12, items 1 and 3), on real
# LuaJIT processes with the JIT on:
# - lines: three hot loops, each its own trace, on known lines in known
#   proportions (tests/workloads/jit_lines.lua): the `l` shares match;
# - libm and FFI: a game loop calling math.sin/cos/sqrt from its traces
#   (jit_game.lua): no `local function` header line holds more than 5%
#   (libm's own time is its functions' frames, on top of the loops);
# - inlined frames: functions inlined into the caller's trace
#   (jit_inline.lua) keep their own frames and lines, on GC64 and
#   non-GC64, upstream and OpenResty builds;
# - and of prototypes that died since (jit_dyn.lua);
# - LuaJIT's benchmark collection against jit.p (tests/jitbench.sh):
#   within 10 points of total variation distance, or within 10 once C
#   functions' time is charged to the Lua frame under them (jit.p cannot
#   sample inside C: it puts that time there), except where jit.p
#   disagrees with itself between the JIT on and -joff by more than that
#   (its safe-point sampling, and the IR_PROF guards it adds to traces,
#   move time there; lj_record.c rec_profile_ins), said with the
#   functions our notes name as inlined without a snapshot.
# JB_FULL=1 runs all 29 benchmark programs (long); the default is a subset.
set -u
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/jitbench.sh"
trap 'cleanup_children; [ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT

HZ=997
DEB=$TOP/.deps/luajit-deb/usr/bin/luajit
# Each check runs on two builds, together covering upstream and OpenResty,
# GC64 and non-GC64, to keep the test short.
builds() {
	local v
	for v in "$@"; do
		[ -x "$TOP/.deps/$v/usr/bin/luajit" ] && echo "$v:$TOP/.deps/$v/usr/bin/luajit"
	done
}
mapfile -t LINE_BUILDS < <(builds luajit-deb-nogc64 luajit2)
mapfile -t GAME_BUILDS < <(builds luajit-deb luajit2)
mapfile -t INLINE_BUILDS < <(builds luajit-deb luajit2-nogc64)

# prof OUT MODE SECS LUAJIT SCRIPT: our view of a fresh run, Lua samples only.
prof() {
	local out=$1 mode=$2 secs=$3 lj=$4 script=$5
	"$PROF" -F "$HZ" --lua-only --jp "$mode" -o "$out" -- "$lj" "$script" "$secs" \
		>/dev/null 2>"$out.err"
}

# lshare FILE KEY: the share of KEY at any level of a view (first match).
lshare() {
	awk -v k="$2" '
		/%  / {
			p = $0; sub(/^ *(-- )? */, "", p); sub(/%.*/, "", p)
			name = $0; sub(/^.*%  /, "", name)
			if (name == k) { print p; exit }
		}' "$1"
}

# --- hot loops on known lines ------------------------------------------------
for v in "${LINE_BUILDS[@]}"; do
	name=${v%%:*} lj=${v#*:}
	out=$TMP/lines-$name.txt
	prof "$out" l 5 "$lj" "$WL/jit_lines.lua"
	for lw in 14:50 20:30 26:20; do
		line=${lw%%:*} want=${lw#*:}
		got=$(lshare "$out" "jit_lines.lua:$line")
		margin "jit lines $name: line $line" "$got" "$want" 3
		if near "$got" "$want" 3; then pass "jit lines $name: line $line ${got}% (truth $want)"
		else fail "jit lines $name: line $line" "got '${got}' want ${want}±3: $(tr '\n' '|' <"$out")"; fi
	done
done

# pprof carries the same lines: go tool pprof -top -lines and -list.
if command -v go >/dev/null 2>&1; then
	pb=$TMP/lines.pb.gz
	"$PROF" -F "$HZ" --lua-only -f pprof -o "$pb" -- "$DEB" "$WL/jit_lines.lua" 4 \
		>/dev/null 2>&1
	go tool pprof -top -lines "$pb" >"$TMP/lines.top" 2>/dev/null
	go tool pprof -list 'loop_b' "$pb" >"$TMP/lines.list" 2>/dev/null
	for lw in 14:50 20:30 26:20; do
		line=${lw%%:*} want=${lw#*:}
		got=$(awk -v l="jit_lines.lua:$line" '$NF ~ l"$" { sub(/%/, "", $2); printf "%.0f", $2; exit }' \
			"$TMP/lines.top")
		margin "jit lines pprof -top -lines: line $line" "$got" "$want" 3
		if near "$got" "$want" 3; then pass "jit lines pprof -top -lines: line $line ${got}%"
		else fail "jit lines pprof: line $line" "got '${got}' want ${want}±3: $(tr '\n' '|' <"$TMP/lines.top")"; fi
	done
	# -list puts loop_b's samples on its loop line, none on its header.
	if awk '$3 ~ /^20:/ && $1 != "." { hot = 1 } $3 ~ /^18:/ && $1 != "." { head = 1 }
		END { exit !(hot && !head) }' "$TMP/lines.list"; then
		pass "jit lines pprof -list: loop_b's samples on line 20"
	else
		fail "jit lines pprof -list" "$(tr '\n' '|' <"$TMP/lines.list")"
	fi
fi

# --- libm and FFI: no time on function headers -------------------------------
headers=$(grep -n '^local function' "$WL/jit_game.lua" | cut -d: -f1)
for v in "${GAME_BUILDS[@]}"; do
	name=${v%%:*} lj=${v#*:}
	out=$TMP/game-$name.txt
	prof "$out" l 4 "$lj" "$WL/jit_game.lua"
	worst=0 wline=""
	for h in $headers; do
		got=$(lshare "$out" "jit_game.lua:$h")
		got=${got:-0}
		[ "$got" -gt "$worst" ] && { worst=$got; wline=$h; }
	done
	body=0
	for l in $(seq 20 38); do
		got=$(lshare "$out" "jit_game.lua:$l")
		body=$((body + ${got:-0}))
	done
	# libm called from the loops' traces: frames of its own (issue 26).
	libm=$(awk '/^ ?[0-9]+%  / && $2 !~ /\.lua:/ && $2 ~ /sin|cos|sqrt/ { sub(/%/, "", $1); s += $1 }
		END { print s + 0 }' "$out")
	body=$((body + libm))
	if [ "$worst" -le 5 ] && [ "$body" -ge 80 ]; then
		pass "jit game $name: headers at most ${worst}%, loop bodies ${body}%"
	else
		fail "jit game $name" "header line ${wline:-?} ${worst}% (max 5), bodies ${body}% (min 80): $(tr '\n' '|' <"$out")"
	fi
done

# --- inlined frames ----------------------------------------------------------
# -joff (no inlining) gives the reference split of leaf; with the JIT on
# leaf must keep most of it (everything went to the root before).
ref=$TMP/inline-joff.txt
"$PROF" -F "$HZ" --lua-only --jp F -o "$ref" -- "$DEB" -joff "$WL/jit_inline.lua" 3 \
	>/dev/null 2>&1
ref_leaf=$(share "$ref" "jit_inline.lua:leaf")
for v in "${INLINE_BUILDS[@]}"; do
	name=${v%%:*} lj=${v#*:}
	out=$TMP/inline-$name.txt
	prof "$out" Fl 3 "$lj" "$WL/jit_inline.lua"
	leaf=$(share "$out" "jit_inline.lua:leaf")
	lines=0
	for l in 12 14 16 18; do
		got=$(lshare "$out" "jit_inline.lua:$l")
		[ -n "$got" ] && [ "$got" -ge 5 ] && lines=$((lines + 1))
	done
	if [ -n "$leaf" ] && [ -n "$ref_leaf" ] && [ "$leaf" -ge $((ref_leaf - 25)) ] &&
	   [ "$lines" -ge 3 ]; then
		pass "jit inline $name: leaf ${leaf}% (-joff ${ref_leaf}%), $lines of its lines"
	else
		fail "jit inline $name" "leaf '${leaf}' vs -joff '${ref_leaf}', $lines lines: $(tr '\n' '|' <"$out")"
	fi
	"$PROF" -F "$HZ" --lua-only -f folded -o "$TMP/inline-$name.folded" -- "$lj" \
		"$WL/jit_inline.lua" 2 >/dev/null 2>&1
	n=$(awk '/jit_inline.lua:0;jit_inline.lua:mid;jit_inline.lua:leaf / { n += $NF }
		 { t += $NF } END { printf "%d", t ? 100 * n / t : 0 }' "$TMP/inline-$name.folded")
	check "jit inline $name: main > mid > leaf stacks ${n}%" [ "$n" -ge 50 ]
done

# --- inlined frames of prototypes that died ---------------------------------
# Recorded at the sample instant with the walker's fingerprint, they still
# resolve after the chunk, its traces and prototypes are freed; those whose
# memory was reused before user space read them are counted as unknown,
# never misnamed (0.3-1.2% on a loaded machine, 10 chunks freed a second).
out=$TMP/dyn.txt
prof "$out" F 3 "$DEB" "$WL/jit_dyn.lua"
leaf=$(share "$out" "dyn:leaf")
total=$(sed -n 's/.* \([0-9]*\) samples in .*/\1/p' "$out.err")
unknown=$(sed -n 's/.* \([0-9]*\) unknown frames.*/\1/p' "$out.err")
if [ -n "$leaf" ] && [ "$leaf" -ge 60 ] && [ -n "$total" ] && [ -n "$unknown" ] &&
   [ $((unknown * 100)) -le $((total * 5)) ]; then
	pass "jit dead prototypes: leaf ${leaf}%, ${unknown} of ${total} samples unresolved"
else
	fail "jit dead prototypes" "leaf '${leaf}' (min 60), unknown '${unknown}' of '${total}' (max 5%): $(tr '\n' '|' <"$out") $(cat "$out.err")"
fi

# --- LuaJIT's benchmark collection against jit.p ------------------------------
if [ -n "${JB_FULL:-}" ]; then
	PROGS=("${JB_ALL[@]}")
else
	# Inlining (array3d), generated code and an exception (fasta),
	# recursion (recursive-fib), plain loops (scimark-sor).
	PROGS=(array3d fasta recursive-fib scimark-sor)
fi
if [ ! -f "$JB_TARBALL" ]; then
	skip_runtimes "bench ${PROGS[*]} against jit.p" "$JB_GLOB"
elif jb_unpack "$TMP/jb" 2>/dev/null; then
	for p in "${PROGS[@]}"; do
		d=$TMP/jb-$p
		mkdir -p "$d"
		jb_jitp F "$p" "$d/on.txt"
		jb_ours "$PROF" F2 "$p" "$d/ours2.txt"
		jb_fold "$d/ours2.txt" leaf >"$d/ours.txt"
		jb_fold "$d/ours2.txt" lua >"$d/ours-lua.txt"
		tvd=$(jb_tvd "$d/ours.txt" "$d/on.txt")
		lua=$(jb_tvd "$d/ours-lua.txt" "$d/on.txt")
		margin "bench $p: TVD points from jit.p (at most)" "$tvd" 0 10
		if [ "$tvd" -le 10 ]; then
			pass "bench $p: TVD ${tvd} points from jit.p"
			continue
		fi
		if [ "$lua" -le 10 ]; then
			pass "bench $p: TVD ${tvd} from jit.p, ${lua} with C functions' time in their Lua caller (jit.p cannot see C)"
			continue
		fi
		inl=$(jb_notes "$d/ours2.txt.err")
		# An exception only where jit.p's own JIT-on view is off its
		# -joff view: shown here, not assumed.
		jb_jitp F "$p" "$d/off.txt" -joff
		self=$(jb_tvd "$d/on.txt" "$d/off.txt")
		if [ "$self" -gt 10 ]; then
			pass "bench $p: TVD ${tvd} from jit.p, whose JIT-on view is ${self} points off its -joff view${inl:+; inlined without a snapshot: $inl}"
		else
			fail "bench $p" "TVD ${tvd} from jit.p (jit.p on/off ${self}): ours $(tr '\n' '|' <"$d/ours.txt") jit.p $(tr '\n' '|' <"$d/on.txt")"
		fi
	done
else
	fail "bench collection" "cannot unpack $JB_TARBALL"
fi
