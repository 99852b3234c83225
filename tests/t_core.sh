#!/bin/bash
# SPDX-License-Identifier: MIT
# Core end-to-end tests: real LuaJIT processes, attached after they started,
# profiled by the real BPF sampler; shares asserted against ground truth
# by construction and keys compared with luajit -jp on the same workload.
source "$(dirname "$0")/lib.sh"

HZ=499		# ~1250 samples in 2.5 s: a 5-point tolerance is > 3 sigma
SECS=2.5

# profile_modes LABEL PID MODE...: one profiler per jit.p mode, in
# parallel on the same target; reports land in $TMP/LABEL.MODE.txt.
profile_modes() {
	local label=$1 pid=$2; shift 2
	local waits=() m
	for m in "$@"; do
		"$PROF" -p "$pid" -d "$SECS" -F "$HZ" --jp "$m" >"$TMP/$label.$m.txt" \
			2>"$TMP/$label.$m.err" &
		waits+=($!)
	done
	wait "${waits[@]}"
}

# run_workload LABEL "LUAJIT FLAGS" WORKLOAD MODE...: start, let it run into
# its steady state (traces compiled), attach, profile, stop it.
run_workload() {
	local label=$1 flags=$2 wl=$3; shift 3
	# shellcheck disable=SC2086
	start_bg "$LUAJIT" $flags "$WL/$wl.lua" 60
	local pid=$BGPID
	wait_lua "$pid"
	profile_modes "$label" "$pid" "$@"
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
}

# jitp_keys FILE: the top-level keys of a jit.p report, sorted.
jitp_keys() {
	sed -n 's/^ \{0,1\}[0-9]\{1,3\}%  //p' "$1" | sort
}

# same_keys NAME OURS THEIRS: the keys at >= 5% agree.
same_keys() {
	local ours theirs
	ours=$(awk '/^ ?[0-9]+%  / { p = $1; sub(/%/, "", p); if (p + 0 >= 5) { sub(/^ ?[0-9]+%  /, ""); print } }' "$2" | sort)
	theirs=$(awk '/^ ?[0-9]+%  / { p = $1; sub(/%/, "", p); if (p + 0 >= 5) { sub(/^ ?[0-9]+%  /, ""); print } }' "$3" | sort)
	if [ "$ours" = "$theirs" ]; then pass "$1 ($(echo $ours))"
	else fail "$1" "ours [$(echo $ours)] jit.p [$(echo $theirs)]"; fi
}

# jitp_run LABEL "FLAGS" WORKLOAD MODE: luajit -jp on the same workload.
jitp_run() {
	# shellcheck disable=SC2086
	"$LUAJIT" $2 -jp="$4" "$WL/$3.lua" 3 >"$TMP/$1.jitp.$4.txt" 2>&1
}

# --- 6:3:1 with the JIT on and off -----------------------------------------
for jit in on off; do
	flags=""; [ $jit = off ] && flags=-joff
	run_workload w631$jit "$flags" w631 F f l
	check_share "6:3:1 jit $jit: F a" "$TMP/w631$jit.F.txt" w631.lua:a 60 5
	check_share "6:3:1 jit $jit: F b" "$TMP/w631$jit.F.txt" w631.lua:b 30 5
	check_share "6:3:1 jit $jit: F c" "$TMP/w631$jit.F.txt" w631.lua:c 10 5
	check_share "6:3:1 jit $jit: f a" "$TMP/w631$jit.f.txt" a 60 5
	check_share "6:3:1 jit $jit: f c" "$TMP/w631$jit.f.txt" c 10 5
	check_share "6:3:1 jit $jit: l line 9" "$TMP/w631$jit.l.txt" w631.lua:9 60 5
	check_share "6:3:1 jit $jit: l line 10" "$TMP/w631$jit.l.txt" w631.lua:10 30 5
	check_share "6:3:1 jit $jit: l line 11" "$TMP/w631$jit.l.txt" w631.lua:11 10 5
	check "6:3:1 jit $jit: no unknown key" \
		bash -c "! grep -q 'unknown' '$TMP/w631$jit.F.txt'"
	jitp_run w631$jit "$flags" w631 F
	same_keys "6:3:1 jit $jit: same F keys as luajit -jp" "$TMP/w631$jit.F.txt" "$TMP/w631$jit.jitp.F.txt"
	jitp_run w631$jit "$flags" w631 l
	same_keys "6:3:1 jit $jit: same l keys as luajit -jp" "$TMP/w631$jit.l.txt" "$TMP/w631$jit.jitp.l.txt"
done

# --- recursion 200 deep: the leaf, and the full stack depth ------------------
run_workload rec "" recurse F 2 -205
check_share "recursion: leaf" "$TMP/rec.F.txt" recurse.lua:leaf 100 3
check_share "recursion: leaf < dive" "$TMP/rec.2.txt" "leaf < dive" 100 3
check "recursion: 200 dive frames walked" \
	bash -c "grep -m1 '%  ' '$TMP/rec.-205.txt' | grep -o 'dive' | wc -l | grep -qx 200"
jitp_run rec "" recurse F
same_keys "recursion: same keys as luajit -jp" "$TMP/rec.F.txt" "$TMP/rec.jitp.F.txt"

# --- coroutine resumed from Lua -----------------------------------------------
run_workload coro "" coro F 2
check_share "coroutine: inside" "$TMP/coro.F.txt" coro.lua:inside 75 5
check_share "coroutine: outside" "$TMP/coro.F.txt" coro.lua:outside 25 5
check_share "coroutine: inside < body" "$TMP/coro.2.txt" "inside < coro.lua:19" 75 5
jitp_run coro "" coro F
same_keys "coroutine: same keys as luajit -jp" "$TMP/coro.F.txt" "$TMP/coro.jitp.F.txt"

# --- pcall, xpcall and __index in the hot path ---------------------------------
run_workload pcall "" pcall F f
check_share "pcall: protected (no name: chunk:line)" "$TMP/pcall.F.txt" pcall.lua:15 50 5
check_share "xpcall: handled" "$TMP/pcall.F.txt" pcall.lua:19 33 5
check_share "__index metamethod (F)" "$TMP/pcall.F.txt" pcall.lua:__index 17 5
check_share "__index metamethod (f)" "$TMP/pcall.f.txt" __index 17 5
jitp_run pcall "" pcall F
same_keys "pcall: same keys as luajit -jp" "$TMP/pcall.F.txt" "$TMP/pcall.jitp.F.txt"

# --- time inside C and fast functions -------------------------------------------
# The sampler sees C functions at the top (jit.p charges them to the Lua
# caller at its next safe point): with -joff string.rep and table.sort show
# up by their own names (never the caller's local name for them: rep, sort),
# the Lua comparators above table.sort.
run_workload cfuncs -joff cfuncs F 2
check_share "C functions: string.rep by its own name" "$TMP/cfuncs.F.txt" string.rep 30 6
check_share "C functions: Lua part" "$TMP/cfuncs.F.txt" cfuncs.lua:lua_part 40 6
check "C functions: table.sort with a Lua comparator above it" \
	grep -q 'cfuncs.lua:2[23] < table.sort' "$TMP/cfuncs.2.txt"

# --- -- COMMAND: the VM is created after luabpfprof started -------------------
"$PROF" -F "$HZ" --jp F -- "$LUAJIT" "$WL/w631.lua" 2 >"$TMP/launch.txt" 2>"$TMP/launch.err"
check_share "-- COMMAND: VM found after start, a" "$TMP/launch.txt" w631.lua:a 60 6
check_share "-- COMMAND: VM found after start, c" "$TMP/launch.txt" w631.lua:c 10 5
check "-- COMMAND: a process that exits is still symbolized" \
	bash -c "! grep -q '^ *[0-9]*%  \[unknown' '$TMP/launch.txt'"
"$PROF" -- /nonexistent/command >"$TMP/noexec.txt" 2>"$TMP/noexec.err"
rc=$?
check "-- COMMAND that cannot run: status 127 and one line" \
	bash -c "[ $rc = 127 ] && grep -q 'cannot run /nonexistent/command: No such file' '$TMP/noexec.err' && [ \$(wc -l < '$TMP/noexec.err') = 1 ]"

# --- the summary line reports losses by cause ------------------------------------
check "summary line on stderr names every loss cause" \
	grep -q 'bad frame.*truncated.*read fault.*stack map full.*count map full' "$TMP/w631on.F.err"

cleanup_children
