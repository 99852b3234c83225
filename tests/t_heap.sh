#!/bin/bash
# SPDX-License-Identifier: MIT
# --heap against heaps known by construction (tests/workloads/heap_known.lua),
# on Debian's 2.1 and OpenResty's luajit2, GC64 and non-GC64 (when
# tests/deps/setup-nongc64.sh built them), and the v2.1 head (when
# tests/deps/setup-runtimes.sh built it from $LBP_RUNTIMES):
#   - the census's accounted bytes are within 5% of what the target's own
#     collectgarbage("count") printed (it is quiescent: collected, blocked);
#   - per kind, the census of the full heap minus that of the same program
#     building nothing is exactly what the program built (N records, N
#     names, 1000 cdata, 1 coroutine, 1 closed upvalue, 2 closures);
#   - no inconsistency on a quiescent heap;
#   - the top reference path is the cache's records, _G.app.cache.users[*]
#     (the global's path, not the main chunk's local that also holds the
#     table: the local is named in its note), and what _G.app.cache.users
#     holds (folded output) is within 10% of what building it took,
#     measured in-process;
#   - pprof's inuse_space total, VM buffers included, is within 1% of
#     collectgarbage("count").
# Growth: a leak at a known rate (heap_leak.lua: 100 records a second,
# each of a size it measures in-process); --heap -d 4 must name the
# leaking path first and give its rate within 20%.
# Then a heap that churns as fast as the VM can (heap_churn.lua): every
# census ends in time, exits 0 and reports its inconsistencies.
source "$(dirname "$0")/lib.sh"

N=100000

# wait_ready FILE: until the target printed its "ready" line (30 s at most).
wait_ready() {
	for _ in $(seq 300); do grep -q '^ready' "$1" 2>/dev/null && return 0; sleep 0.1; done
	return 1
}

# col FILE KIND FIELD: count (2) or bytes (3) of a kind's line; kinds of
# two words (Lua function) are matched on the first.
col() {
	awk -v k="$2" -v f="$3" '$1 == k { if (k == "Lua" || k == "C") f++; print $f; exit }' "$1"
}

# census NAME LUAJIT BUILD OUT: starts heap_known.lua, runs --heap on it.
census() {
	local name=$1 lj=$2 build=$3 out=$4
	start_bg "$lj" "$WL/heap_known.lua" "$build" "$N" > "$out.target"
	if ! wait_ready "$out.target"; then
		fail "$name: target" "never ready: $(head -c 300 "$out.target")"
		return 1
	fi
	if ! timeout 30 "$PROF" --heap -p "$BGPID" > "$out" 2> "$out.err" ||
	   ! timeout 30 "$PROF" --heap -p "$BGPID" -f folded > "$out.folded" 2>> "$out.err"; then
		fail "$name: --heap" "exit $?: $(tr '\n' '|' < "$out.err")"
		return 1
	fi
	BGPID_KEEP=$BGPID
}

# delta NAME KIND WANT A B: the count of KIND in census B minus in A is WANT.
delta() {
	local got=$(( $(col "$5" "$2" 2) - $(col "$4" "$2" 2) ))
	if [ "$got" -eq "$3" ]; then pass "$1: $2 +$got"
	else fail "$1: $2" "built $3, census found +$got"; fi
}

runtime() {
	local name=$1 lj=$2 a=$TMP/$1.0 b=$TMP/$1.1
	[ -x "$lj" ] || { echo "SKIP: $name: $lj not built"; return; }
	census "$name" "$lj" 0 "$a" || return
	kill "$BGPID_KEEP"
	census "$name" "$lj" 1 "$b" || return
	local kb acc inc
	kb=$(awk '/^ready/ { printf "%d", $2 * 1024 }' "$b.target")
	acc=$(awk '$1 == "accounted" { print $2 }' "$b")
	margin "$name: accounted bytes vs collectgarbage" "$acc" "$kb" $(( kb / 20 ))
	if [ -n "$acc" ] && near "$acc" "$kb" $(( kb / 20 )); then
		pass "$name: accounted $acc B vs collectgarbage $kb B"
	else
		fail "$name: total" "accounted '$acc' vs collectgarbage $kb: $(tr '\n' '|' < "$b")"
	fi
	delta "$name" table $(( N + 5 )) "$a" "$b"
	delta "$name" string $(( N + 1 )) "$a" "$b"
	delta "$name" Lua 2 "$a" "$b"
	delta "$name" upvalue 1 "$a" "$b"
	delta "$name" thread 1 "$a" "$b"
	delta "$name" cdata 1000 "$a" "$b"
	# The 10 MiB string alone: the strings' bytes grew by at least that.
	check "$name: big string bytes" \
		[ $(( $(col "$b" string 3) - $(col "$a" string 3) )) -ge $(( 10 * 1048576 )) ]
	inc=$(awk '$1 == "inconsistent" { print $2 }' "$b")
	check "$name: quiescent heap consistent" [ "$inc" = 0 ]
	# After a full collection nothing but the VM's fixed roots (metamethod
	# names, base metatables) is unreached: the JIT's traces are a root
	# (the workload's loops compile), and what is left is said by kind.
	check "$name: no trace unreached" \
		eval '! grep -qF "[not reached from the roots][trace]" "$b"'
	check "$name: unreached is split by kind" \
		eval '! grep -qE "[0-9]  \[not reached from the roots\]$" "$b"'
	local top held want
	top=$(awk '/^# Top reference paths/ { on = 1; next } on && $1 ~ /^[0-9]+$/ { print $4; exit }' "$b")
	# The records are reached from the global and from the main chunk's
	# local: the global's path is the one shown, the local in its note.
	check "$name: top path is the cache's records ($top)" [ "$top" = "_G.app.cache.users[*]" ]
	local note
	note=$(awk '/^# Top reference paths/ { on = 1; next } on && $1 ~ /^[0-9]+$/ { print; exit }' "$b")
	check "$name: the top path's note names the local (${note##*  })" \
		grep -qF "(also 1 other path: [main thread][heap_known.lua:0 local users][*])" <<<"$note"
	# pprof: go tool pprof reads it as a heap profile, the records first
	# (on one build of each width: go's start-up is slow).
	if [ "$name" = deb-gc64 ] || [ "$name" = openresty-nogc64 ]; then
	# SVG: well-formed, the cache's records a frame of it.
	if timeout 60 "$PROF" --heap -p "$BGPID_KEEP" -o "$b.svg" 2>> "$b.err" &&
	   xmllint --noout "$b.svg" 2>> "$b.err"; then
		check "$name: svg has the records' frame" \
			grep -q '<title>_G\.app\.cache\.users\[\*\]' "$b.svg"
		# ... and works in chromium (once: its start-up is slow).
		[ "$name" = deb-gc64 ] &&
			(cd "$TOP/tests/node" && node check_heap_svg.js "$b.svg" '_G.app.cache.users[*]')
	else
		fail "$name: svg" "$(head -c 300 "$b.err" | tr '\n' '|')"
	fi
	if timeout 60 "$PROF" --heap -p "$BGPID_KEEP" -o "$b.pb.gz" 2>> "$b.err" &&
	   go tool pprof -top -sample_index=inuse_objects "$b.pb.gz" > "$b.pprof" 2>&1; then
		check "$name: pprof inuse_objects: $N records on their path" \
			grep -qE "^ *$N .* _G\.app\.cache\.users\[\*\]$" "$b.pprof"
		# inuse_space's total (the VM buffers are samples of their own) is
		# collectgarbage("count") of the quiescent target, within 1%.
		local total
		total=$(go tool pprof -top -sample_index=inuse_space -unit=B "$b.pb.gz" 2>/dev/null |
			sed -n 's/.* of \([0-9]*\)B total.*/\1/p')
		margin "$name: pprof inuse_space total vs collectgarbage" "$total" "$kb" $(( kb / 100 ))
		if [ -n "$total" ] && near "$total" "$kb" $(( kb / 100 )); then
			pass "$name: pprof inuse_space total $total B vs collectgarbage $kb B"
		else
			fail "$name: pprof total" "inuse_space '$total' B vs collectgarbage $kb B (1%)"
		fi
	else
		fail "$name: pprof" "$(head -c 300 "$b.pprof" "$b.err" 2>/dev/null | tr '\n' '|')"
	fi
	fi
	held=$(awk '$0 ~ /;_G;\.app;\.cache;\.users( |;)/ { s += $NF } END { print s + 0 }' "$b.folded")
	want=$(awk '/^ready/ { printf "%d", $3 * 1024 }' "$b.target")
	margin "$name: _G.app.cache.users bytes vs built" "$held" "$want" $(( want / 10 ))
	if near "$held" "$want" $(( want / 10 )); then
		pass "$name: _G.app.cache.users holds $held B, built $want B"
	else
		fail "$name: cache bytes" "path holds $held B, building it took $want B"
	fi
	kill "$BGPID_KEEP"
}

runtime deb-gc64 "$TOP/.deps/luajit-deb/usr/bin/luajit"
runtime openresty-gc64 "$TOP/.deps/luajit2/usr/bin/luajit"
runtime deb-nogc64 "$TOP/.deps/luajit-deb-nogc64/usr/bin/luajit"
runtime openresty-nogc64 "$TOP/.deps/luajit2-nogc64/usr/bin/luajit"
# The v2.1 head (2025+ layout), built from $LBP_RUNTIMES's tarball by
# tests/deps/setup-runtimes.sh (OpenResty's head has the layout of the
# luajit2 package above).
if ! runtimes_file 'luajit-2.1-*.tar.gz' >/dev/null; then
	skip_runtimes "the v2.1 head (head-gc64, head-nogc64)" 'luajit-2.1-*.tar.gz'
elif ! runtimes_build; then
	fail "v2.1 head builds" "tests/deps/setup-runtimes.sh: $(tail -3 "$TMP/setup-runtimes.log" | tr '\n' '|')"
else
	for v in head-gc64 head-nogc64; do
		runtime "$v" "$RUNTIMES_CACHE/$v/src/luajit"
	done
fi

growth() {
	local name=$1 lj=$2 out=$TMP/leak.$1 rate=100 per top got want
	[ -x "$lj" ] || return
	start_bg "$lj" "$WL/heap_leak.lua" "$rate" > "$out.target"
	wait_ready "$out.target" || { fail "$name: leak target" "never ready"; return; }
	if ! timeout 30 "$PROF" --heap -d 4 -p "$BGPID" > "$out" 2> "$out.err"; then
		fail "$name: --heap -d" "$(tr '\n' '|' < "$out.err")"
		kill "$BGPID"
		return
	fi
	kill "$BGPID"
	per=$(awk '/^ready/ { print $2 }' "$out.target")
	top=$(awk '/^# Paths that grew most/ { on = 1; next } on && $1 ~ /^\+/ { print $4; exit }' "$out")
	check "$name: the leak is the top growth ($top)" eval '[[ $top == _G.sessions\[\*\]* ]]'
	got=$(awk '/^# Paths that grew most/ { on = 1; next } /^$/ { on = 0 }
		on && index($4, "_G.sessions[*]") == 1 { s += $2 } END { printf "%d", s + 0 }' "$out")
	want=$(awk -v r="$rate" -v p="$per" 'BEGIN { printf "%d", r * p }')
	margin "$name: leak rate vs built" "$got" "$want" $(( want / 5 ))
	if near "$got" "$want" $(( want / 5 )); then
		pass "$name: leak rate $got B/s, built $want B/s"
	else
		fail "$name: leak rate" "measured $got B/s, built $want B/s: $(sed -n '/# Paths that grew/,/^$/p' "$out" | tr '\n' '|')"
	fi
}
growth deb-gc64 "$TOP/.deps/luajit-deb/usr/bin/luajit"
growth openresty-nogc64 "$TOP/.deps/luajit2-nogc64/usr/bin/luajit"

# A mutating heap: ten censuses in a row, each in time and exiting 0.
churn() {
	local name=$1 lj=$2 ok=0 out=$TMP/churn.$1
	[ -x "$lj" ] || return
	start_bg "$lj" "$WL/heap_churn.lua" > "$out.target"
	wait_ready "$out.target" || { fail "$name: churn target" "never ready"; return; }
	sleep 0.5
	for i in $(seq 10); do
		if timeout 20 "$PROF" --heap -p "$BGPID" > "$out.$i" 2> "$out.$i.err" &&
		   grep -q '^inconsistent' "$out.$i"; then
			ok=$((ok + 1))
		else
			fail "$name: churn census $i" "$(tr '\n' '|' < "$out.$i.err")"
		fi
	done
	check "$name: 10 censuses of a churning heap end, in time" [ "$ok" = 10 ]
	echo "inconsistencies seen: $(awk '$1 == "inconsistent" { s += $2 } END { print s + 0 }' "$out".[0-9]*)"
	kill "$BGPID"
}
churn deb-gc64 "$TOP/.deps/luajit-deb/usr/bin/luajit"
churn openresty-nogc64 "$TOP/.deps/luajit2-nogc64/usr/bin/luajit"

# Continuous mode: with --heap, a heap profile per interval next to the
# CPU one (files here; pushes take the same path), idle target or not; the
# leak shows as _G.sessions[*] growing from file to file.
continuous() {
	local out=$TMP/cont first last a b
	mkdir -p "$out/dir"
	start_bg "$LUAJIT_EXE" "$WL/heap_leak.lua" 200 > "$out/target"
	wait_ready "$out/target" || { fail "continuous: target" "never ready"; return; }
	timeout 30 "$PROF" --continuous --heap --every 1 -d 3.5 -p "$BGPID" --out-dir "$out/dir" \
		> "$out/log" 2>&1
	kill "$BGPID"
	first=$(ls "$out/dir"/*-heap.pb.gz 2>/dev/null | head -1)
	last=$(ls "$out/dir"/*-heap.pb.gz 2>/dev/null | tail -1)
	check "continuous: a heap profile per interval ($(ls "$out/dir" | grep -c heap))" \
		[ "$(ls "$out/dir" | grep -c -- '-heap\.pb\.gz$')" -ge 3 ]
	[ -n "$first" ] || return
	# The ingest test server decodes each as it would a push.
	if build_ingest && "$INGEST" -check "$out/dir"/*-heap.pb.gz > "$out/check" 2>&1; then
		pass "continuous: the ingest server accepts every heap profile ($(grep -c '^ok' "$out/check"))"
	else
		fail "continuous: ingest" "$(head -c 300 "$out/check" | tr '\n' '|')"
	fi
	a=$(go tool pprof -top -sample_index=inuse_space -unit=byte "$first" 2>/dev/null |
		awk '$NF == "_G.sessions[*]" { sub(/B$/, "", $4); print $4; exit }')
	b=$(go tool pprof -top -sample_index=inuse_space -unit=byte "$last" 2>/dev/null |
		awk '$NF == "_G.sessions[*]" { sub(/B$/, "", $4); print $4; exit }')
	if [ -n "$a" ] && [ -n "$b" ] && [ "$b" -gt "$a" ]; then
		pass "continuous: the leak grows from the first heap profile to the last ($a -> $b B)"
	else
		fail "continuous: growth" "_G.sessions[*] held '$a' then '$b' B"
	fi
}
continuous

# GC pressure by stack (the CPU profiler's VM states, --jp vF): the time
# in the collector is all under the function that allocates
# (heap_gc.lua: churn allocates, light does not).
gc_pressure() {
	local out=$TMP/gc share
	start_bg "$LUAJIT_EXE" "$WL/heap_gc.lua" > "$out.target"
	wait_ready "$out.target" || { fail "gc pressure: target" "never ready"; return; }
	if ! timeout 30 "$PROF" -p "$BGPID" -d 2 -F 499 --jp vF > "$out" 2> "$out.err"; then
		fail "gc pressure: run" "$(tr '\n' '|' < "$out.err")"
		kill "$BGPID"
		return
	fi
	kill "$BGPID"
	share=$(awk '/^ ?[0-9]+%  Garbage Collector/ { on = 1; next } /^ ?[0-9]+%/ { on = 0 }
		on && /heap_gc.lua:churn/ { sub(/^ *-- */, ""); sub(/%.*/, ""); print; exit }' "$out")
	if [ -n "$share" ] && [ "$share" -ge 95 ]; then
		pass "gc pressure: the collector's time is under churn ($share%)"
	else
		fail "gc pressure" "churn has '${share}'% of the GC time: $(tr '\n' '|' < "$out")"
	fi
}
gc_pressure

# Bad input: one line, the usage or runtime status.
bad() {
	local name=$1 want=$2; shift 2
	"$PROF" "$@" > "$TMP/bad.out" 2> "$TMP/bad.err"
	local rc=$? lines
	lines=$(wc -l < "$TMP/bad.err")
	if [ "$rc" = "$want" ] && [ "$lines" = 1 ]; then pass "bad input: $name (exit $rc)"
	else fail "bad input: $name" "exit $rc (want $want), $lines lines: $(cat "$TMP/bad.err")"; fi
}
bad "--heap without -p" 2 --heap
bad "--heap -- COMMAND" 2 --heap -- true
bad "--heap -f speedscope" 2 --heap -p $$ -f speedscope
bad "--heap on a process without LuaJIT" 1 --heap -p $$
bad "--heap on no process" 1 --heap -p 3999999
