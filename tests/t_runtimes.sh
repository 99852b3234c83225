#!/bin/bash
# SPDX-License-Identifier: MIT
# LuaJIT where users embed it beyond Debian's two builds:
# - Tarantool (Debian's package, its own LuaJIT fork linked statically):
#   the 6:3:1 workload, JIT on and off, within 3 points;
# - the current heads of LuaJIT v2.1 and OpenResty's luajit2, GC64 and
#   non-GC64, built from the tarballs in $LBP_RUNTIMES (no registry serves
#   them; tests/deps/setup-runtimes.sh), skipped with one line without it:
#   6:3:1 within 3 points, JIT on and off, so that a release that changes a
#   layout fails here loudly instead of profiling wrongly;
# - LuaJIT 2.0: recognised and refused by name;
# - LÖVE under Xvfb: a game loop's hot function is found.
source "$(dirname "$0")/lib.sh"

HZ=999
SECS=6		# ~6000 samples: 3 points is more than 4 sigma for every share
TOL=3
CACHE=$RUNTIMES_CACHE
# build -> the tarball it is made from (tests/deps/setup-runtimes.sh)
declare -A TARBALL=([head-gc64]='luajit-2.1-*.tar.gz' [head-nogc64]='luajit-2.1-*.tar.gz'
	[orhead-gc64]='luajit2-openresty-*.tar.gz' [orhead-nogc64]='luajit2-openresty-*.tar.gz'
	[v20]='luajit-2.0-*.tar.gz')

# split631 TAG PID: profile PID and check a:b:c = 60:30:10 by function.
split631() {
	local tag=$1 pid=$2 out=$TMP/${1//\//.}
	sleep 0.5	# past start-up: the VM exists and the loops are compiled
	"$PROF" -p "$pid" -d "$SECS" -F "$HZ" --jp F >"$out.F" 2>"$out.err"
	check_share "$tag: a" "$out.F" w631.lua:a 60 $TOL
	check_share "$tag: b" "$out.F" w631.lua:b 30 $TOL
	check_share "$tag: c" "$out.F" w631.lua:c 10 $TOL
	check "$tag: no unwind errors" grep -q ' 0 bad frame, 0 truncated, 0 read fault' "$out.err"
	echo "info: $tag: $(tr '\n' ' ' <"$out.F")"
}

# --- Tarantool
if command -v tarantool >/dev/null; then
	for mode in jit joff; do
		pre='jit.on()'; [ $mode = joff ] && pre='jit.off()'
		start_bg tarantool -e "$pre" "$WL/w631.lua" 60
		split631 "tarantool/$mode" "$BGPID"
		check "tarantool/$mode: the VM state matches the mode" \
			bash -c "'$PROF' -p $BGPID -d 1 --jp v 2>/dev/null | head -n1 |
				grep -q '$([ $mode = jit ] && echo Compiled || echo Interpreted)'"
		cleanup_children
	done
else
	fail "tarantool" "not installed (tests/deps/apt.runtimes)"
fi

# --- Upstream heads, GC64 and not, and 2.0: only what $LBP_RUNTIMES holds
# (a build left in the cache from another source is not used), one SKIP
# line for what it lacks.
missing=() BUILDS=()
for build in head-gc64 head-nogc64 orhead-gc64 orhead-nogc64 v20; do
	if runtimes_file "${TARBALL[$build]}" >/dev/null; then BUILDS+=("$build")
	else missing+=("${TARBALL[$build]}"); fi
done
if [ ${#missing[@]} -gt 0 ]; then
	skip_runtimes "upstream LuaJIT heads and 2.0" "$(printf '%s\n' "${missing[@]}" | sort -u | paste -sd' ')"
fi
if [ ${#BUILDS[@]} -gt 0 ] && ! runtimes_build; then
	fail "upstream builds" "tests/deps/setup-runtimes.sh: $(tail -3 "$TMP/setup-runtimes.log" | tr '\n' '|')"
	BUILDS=()
fi
built() { [[ " ${BUILDS[*]} " == *" $1 "* ]]; }
for build in head-gc64 head-nogc64 orhead-gc64 orhead-nogc64; do
	built "$build" || continue
	bin=$CACHE/$build/src/luajit
	if [ ! -x "$bin" ]; then
		fail "$build" "no build at $bin (tests/deps/setup-runtimes.sh)"
		continue
	fi
	for mode in jit joff; do
		flag=; [ $mode = joff ] && flag=-joff
		start_bg env LUA_PATH="$CACHE/$build/src/?.lua;;" "$bin" $flag "$WL/w631.lua" 60
		split631 "$build/$mode" "$BGPID"
		cleanup_children
	done
done

# --- LuaJIT 2.0: refused by name, with exit 1
bin=$CACHE/v20/src/luajit
if ! built v20; then
	:	# skipped above
elif [ -x "$bin" ]; then
	start_bg "$bin" "$WL/w631.lua" 60
	sleep 0.3
	"$PROF" -p "$BGPID" -d 1 >"$TMP/v20.out" 2>"$TMP/v20.err"
	rc=$?
	check "LuaJIT 2.0: exit 1" [ $rc -eq 1 ]
	check "LuaJIT 2.0: one line that names it and why" \
		grep -qx "luabpfprof: PID $BGPID (luajit): LuaJIT 2.0 is not supported: its global_State has no cur_L, so the running coroutine cannot be found from outside" "$TMP/v20.err"
	check "LuaJIT 2.0: no report" [ ! -s "$TMP/v20.out" ]
	cleanup_children
else
	fail "LuaJIT 2.0" "no build at $bin (tests/deps/setup-runtimes.sh)"
fi

# --- LÖVE under Xvfb: the game loop's hot function
if command -v love >/dev/null && command -v xvfb-run >/dev/null; then
	start_bg xvfb-run -a love "$WL/love"
	pid=
	for _ in $(seq 100); do
		pid=$(pgrep -x love -P "$BGPID" | head -n1)
		[ -n "$pid" ] && break
		sleep 0.1
	done
	if [ -n "$pid" ]; then
		sleep 1
		"$PROF" -p "$pid" -d 4 -F "$HZ" --jp F --lua-only >"$TMP/love.F" 2>"$TMP/love.err"
		top=$(sed -n '1s/^ *[0-9]*%  //p' "$TMP/love.F")
		check "LÖVE: the hot function is on top (got '$top')" [ "$top" = main.lua:step_particles ]
		check "LÖVE: no unwind errors" grep -q ' 0 bad frame, 0 truncated, 0 read fault' "$TMP/love.err"
		echo "info: LÖVE: $(tr '\n' ' ' <"$TMP/love.F")"
		kill "$pid" 2>/dev/null
	else
		fail "LÖVE" "love did not start under xvfb-run"
		pkill -x love -P "$BGPID" 2>/dev/null
	fi
	# xvfb-run stops its Xvfb once love exits; killed first, it would leave
	# Xvfb running.
	for _ in $(seq 50); do kill -0 "$BGPID" 2>/dev/null || break; sleep 0.1; done
	cleanup_children
else
	fail "LÖVE" "love or xvfb-run not installed (tests/deps/apt.runtimes)"
fi
rm -rf "$TMP"
exit 0
