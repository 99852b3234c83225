#!/bin/bash
# SPDX-License-Identifier: MIT
# --jit, the JIT health report (issue 16), against `luajit -jv` on the same
# workloads (tests/workloads/jit_health.lua), on Debian's upstream 2.1 and
# OpenResty's luajit2 (and fnew on OpenResty's non-GC64 build and on
# Tarantool's fork):
# - fnew:    closure creation (FNEW, NYI bytecode) in the hot loop: every
#            root abort -jv prints, with its reason and "at" line, and the
#            loop's FORL blacklisted after the repeated aborts;
# - nyiff:   a builtin called with a variable number of arguments (CALLM),
#            which 2.1 neither compiles nor stitches: its trace returns to
#            the interpreter ("return" link) and no abort is invented;
# - stitch:  a C function (os.clock): a "stitch" trace;
# - leave:   inner loops leaving the root trace: those reasons and lines;
# - side:    a type-unstable branch: its exit gets hot and a side trace;
#            every side trace -jv prints as "(P/E)" is reported as
#            "side of P/exit E" (GCtrace keeps no parent: rebuilt from the
#            snapshots), and the exit is listed as hot with its side trace
#            (the loop's exit falls back to the interpreter: the driver
#            runs with the JIT off, so its side trace's tries fail);
# - healthy: one loop trace, no abort at all, and the gate passes.
# Each report is compared with the target's own -jv log (-jv=FILE), root
# aborts only (side-trace aborts never
# reach the penalty cache the report reads: src/lj_trace.c trace_abort).
# The message argument and the "at" line are only known for aborts the
# polls saw last: they may print as "?" and be absent, never different.
# pprof labels fnew's samples with the abort (jit_abort), and the SVG
# puts it in the function's tooltip.
# --fail-if-interpreted 20 exits 3 on fnew and 0 on healthy, and
# the target's trace count (jit.util.traceinfo) is the same before and
# after the profile.  In nginx, fnew is a request handler under wrk,
# compared with the worker's own jit.v log.
set -u
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/variants.sh"
trap 'cleanup_children; [ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT

SCRIPT=$WL/jit_health.lua
CHUNK=jit_health.lua
MODES="fnew nyiff stitch leave side healthy"
# fnew's closure line, and its loop's FORL just above.
CLOSURE_LINE=$(grep -n 'local f = function() return i end' "$SCRIPT" | cut -d: -f1)
FORL_LINE=$((CLOSURE_LINE - 1))
# Aborts compared: those starting above the driver (work(), the hot code).
MAXLINE=$(grep -n '^-- The driver' "$SCRIPT" | cut -d: -f1)
SIDE_LINE=$(grep -n 'local v = vals\[' "$SCRIPT" | cut -d: -f1)

# root_aborts REF: "LINE<TAB>REASON<TAB>AT" for each root abort in work()
# (start line below 60: the driver runs with the JIT off).
root_aborts() {
	sed -n 's/^\[TRACE --- '"$CHUNK"':\([0-9]*\) -- \(.*\) at '"$CHUNK"':\([0-9]*\)\]$/\1\t\2\t\3/p' "$1" |
		awk -F'\t' -v max="$MAXLINE" '$1 < max' | sort -u
}

# our_aborts OUT: "LINE<TAB>TEXT<TAB>AT" for each abort line of the report.
our_aborts() {
	sed -n 's/^    abort    '"$CHUNK"':\([0-9]*\) -- \(.*\)$/\1\t\2/p' "$1" |
		sed 's/  \[start blacklisted\]$//; s/ (? : it aborted before luabpfprof attached;.*)$//' |
		awk -F'\t' '{ at = ""; t = $2
			if (match(t, / at '"$CHUNK"':[0-9]+$/)) {
				at = substr(t, RSTART + 4 + length("'"$CHUNK"'") + 1); t = substr(t, 1, RSTART - 1) }
			print $1 "\t" t "\t" at }' | sort -u
}

# root_traces REF: "LINE<TAB>LINK" of root traces in work(), links named as
# jit.util.traceinfo names them.
root_traces() {
	sed -n 's/^\[TRACE *[0-9]* '"$CHUNK"':\([0-9]*\) \(.*\)\]$/\1 \2/p' "$1" |
		awk -v max="$MAXLINE" '$1 < max {
			l = $2
			if ($2 == "->") l = "root"
			else if ($2 == "--") l = "interpreter"
			print $1 "\t" l }' | sort -u
}

# check_aborts LABEL REF OUT: -jv's root aborts are in the report, with a
# reason -jv gave for that start ("?" for an argument not seen) and its
# "at" line when known; and the report has no other abort.
check_aborts() {
	local label=$1 ref=$2 out=$3 line reason at ok missing="" invented="" exact=0
	while IFS=$'\t' read -r line reason at; do
		ok=0
		while IFS=$'\t' read -r rline rreason rat; do
			[ "$rline" = "$line" ] || continue
			if [ "$reason" = "$rreason" ] || [ "$reason" = "$(echo "$rreason" | sed 's/ [0-9][0-9]*$/ ?/; s/ [A-Za-z_.]*$/ ?/')" ]; then
				if [ -z "$at" ] || [ "$at" = "$rat" ]; then
					ok=1
					[ "$reason" = "$rreason" ] && [ -n "$at" ] && exact=$((exact + 1))
				fi
			fi
		done < <(root_aborts "$ref")
		[ "$ok" = 1 ] || invented="$invented $line:$reason${at:+ at $at}"
	done < <(our_aborts "$out")
	while IFS=$'\t' read -r rline _ _; do
		grep -q "^$rline	" <(our_aborts "$out") || missing="$missing $rline"
	done < <(root_aborts "$ref")
	if [ -z "$missing" ] && [ -z "$invented" ]; then
		pass "$label: aborts as -jv ($(root_aborts "$ref" | cut -f1 | sort -u | tr '\n' ' ')lines, $exact with argument and line)"
	else
		fail "$label" "missing start lines:${missing:- none}; not in -jv:${invented:- none}; ref: $(root_aborts "$ref" | tr '\t\n' ' |'); ours: $(our_aborts "$out" | tr '\t\n' ' |')"
	fi
	EXACT=$exact
}

# check_traces LABEL REF OUT [SKIPLINE]: -jv's root traces are in the
# report (SKIPLINE: one in a function too small to pass --jit-hot surely).
check_traces() {
	local label=$1 ref=$2 out=$3 skip=${4:-0} line link missing=""
	while IFS=$'\t' read -r line link; do
		[ "$line" = "$skip" ] && continue
		grep -Eq "^    trace +[0-9]+ $CHUNK:$line $link( |$)" "$out" || missing="$missing $line:$link"
	done < <(root_traces "$ref")
	if [ -z "$missing" ]; then
		pass "$label: root traces as -jv ($(root_traces "$ref" | tr '\t\n' ' ,'))"
	else
		fail "$label" "traces missing:$missing; report: $(grep '^    trace' "$out" | tr '\n' '|')"
	fi
}

# pprof_labels FILE KEY: "samples<TAB>value" per value of string label KEY.
pprof_labels() {
	NODE_PATH=$TOP/tests/node/node_modules node -e '
		const zlib = require("zlib"), fs = require("fs");
		const { Profile } = require("pprof-format");
		const p = Profile.decode(zlib.gunzipSync(fs.readFileSync(process.argv[1])));
		const str = (i) => p.stringTable.strings[Number(i)], m = new Map();
		for (const s of p.sample)
			for (const l of s.label)
				if (str(l.key) === process.argv[2])
					m.set(str(l.str), (m.get(str(l.str)) || 0) + Number(s.value[0]));
		for (const [k, v] of m) console.log(v + "\t" + k);' "$1" "$2"
}

# side_traces REF: "N<TAB>P/E<TAB>LINE" for each side trace -jv compiled in
# work() ("[TRACE   2 (1/2) chunk:57 -> 1]"; stitches print "(P/stitch)"
# and are root traces to the JIT: left out).
side_traces() {
	sed -n 's/^\[TRACE *\([0-9][0-9]*\) (\([0-9]*\/[0-9]*\)) '"$CHUNK"':\([0-9]*\) .*$/\1\t\2\t\3/p' "$1" |
		awk -F'\t' -v max="$MAXLINE" '$3 < max' | sort -u
}

# check_sides LABEL REF OUT [SKIPLINE]: each of -jv's side traces is in the
# report with -jv's parent and exit, and its exit is listed as hot.
check_sides() {
	local label=$1 ref=$2 out=$3 skip=${4:-0} n pe line bad="" count=0
	while IFS=$'\t' read -r n pe line; do
		[ "$line" = "$skip" ] && continue
		count=$((count + 1))
		grep -Eq "^    trace +$n $CHUNK:$line .* side of ${pe%/*}/exit ${pe#*/}$" "$out" ||
			bad="$bad trace $n ($pe at $line);"
		grep -Eq "^    exit +${pe%/*}/${pe#*/} +$CHUNK:$line -- hot, side trace $n( |$)" "$out" ||
			bad="$bad exit $pe not hot;"
		# -jv's "fallback to interpreter": a side trace linked to it.
		if grep -q "^\[TRACE *$n ($pe) $CHUNK:$line -- fallback to interpreter\]$" "$ref"; then
			grep -Eq "^    exit +${pe%/*}/${pe#*/} .* side trace $n falls back to the interpreter$" "$out" ||
				bad="$bad exit $pe not a fallback;"
		fi
	done < <(side_traces "$ref")
	if [ -z "$bad" ]; then
		pass "$label: side traces' parent/exit as -jv ($count: $(side_traces "$ref" | tr '\t\n' ' ,'))"
	else
		fail "$label: side traces" "$bad report: $(grep -E '^    (trace|exit)' "$out" | tr '\n' '|')"
	fi
	SIDES=$count
}

# check_interp_share LABEL OUT: the report's interpreted share of the
# hottest function is --jp v's for it (the Fv view of the same samples,
# whole points).
check_interp_share() {
	local interp vshare
	interp=$(awk '/^ share compiled/ { getline; sub(/%/, "", $3); printf "%.0f", $3; exit }' "$2")
	vshare=$(awk '/^ ?[0-9]+%  / { top = top == "" ? $2 : top; inside = (top == $2) ; next }
		inside && /<- [0-9]+%  Interpreted$/ { sub(/%/, "", $2); print $2; exit }' "$2")
	margin "$1: interpreted share vs --jp Fv" "$interp" "$vshare" 3
	if near "$interp" "${vshare:-x}" 3; then pass "$1: interpreted share ${interp}% as --jp Fv's ${vshare}%"
	else fail "$1: interpreted share" "report '$interp' vs --jp Fv '$vshare': $(head -5 "$2" | tr '\n' '|')"; fi
}

declare -A JOPTS=([side]="-Ohotexit=7 -Otryside=3")

run_case() {
	local v=$1 mode=$2 dir="$TMP/$1-$2" rc pid counts
	mkdir -p "$dir"
	# The reference is the target's own -jv log: the JIT's choices vary from
	# run to run (its penalties have random bits), so it must be this run's.
	if [ "$v" = tarantool ]; then	# no -jv option: jit.v started by -e
		start_bg eval "exec tarantool -e 'require(\"jit.v\").start(\"$dir/ref\")' \
			'$SCRIPT' $mode 20 0.5 '$dir/stop' >'$dir/counts'"
	else
		# side: J->param set off its defaults, to be read back.
		start_bg eval "exec $(variant_cmd "$v" "-jv=$dir/ref" ${JOPTS[$mode]:-} "$SCRIPT" "$mode" 20 0.5 "$dir/stop") >'$dir/counts'"
	fi
	pid=$BGPID
	# Profile once the first count is out; stop the target after.
	for _ in $(seq 100); do
		grep -q '^traces' "$dir/counts" 2>/dev/null && break
		sleep 0.05
	done
	"$PROF" -p "$pid" -d 1.0 --jp Fv --jit --jit-hot 5 --fail-if-interpreted 20 -o "$dir/out" \
		2>"$dir/err"
	rc=$?
	# fnew: pprof carries the abort as a label (the report goes to stderr).
	if [ "$mode" = fnew ]; then
		"$PROF" -p "$pid" -d 0.8 --jit -o "$dir/out.pb.gz" 2>"$dir/pb.err"
	fi
	# ... and the SVG's tooltips (once, on the first build).
	if [ "$mode" = fnew ] && [ "$v" = deb-bin ]; then
		"$PROF" -p "$pid" -d 0.6 --jit -o "$dir/out.svg" 2>/dev/null
	fi
	touch "$dir/stop"
	wait "$pid" 2>/dev/null
	grep -q "==== JIT health" "$dir/out" ||
		{ fail "$v $mode: report" "no JIT section: $(tr '\n' '|' < "$dir/err")"; return; }
	check_aborts "$v $mode" "$dir/ref" "$dir/out"
	# fnew's closure is a function of its own, near 5% of the samples.
	check_traces "$v $mode" "$dir/ref" "$dir/out" "$([ "$mode" = fnew ] && echo "$CLOSURE_LINE")"
	check_sides "$v $mode" "$dir/ref" "$dir/out" "$([ "$mode" = fnew ] && echo "$CLOSURE_LINE")"
	counts=$(awk '/^traces /{print $2}' "$dir/counts" | tr '\n' ' ')
	# shellcheck disable=SC2086
	set -- $counts
	if [ $# -eq 2 ] && [ "$1" = "$2" ]; then
		pass "$v $mode: trace count unchanged by profiling ($1)"
	else
		fail "$v $mode: trace count" "before/after: '$counts'"
	fi
	case $mode in
	fnew)
		[ "$EXACT" -ge 1 ] && pass "$v fnew: a message with its argument and line" ||
			fail "$v fnew: argument" "no abort with argument and line: $(grep abort "$dir/out" | tr '\n' '|')"
		# The report's interpreted share of the hot function is --jp v's
		# for it (the Fv view of the same samples, whole points).
		check_interp_share "$v fnew" "$dir/out"
		check "$v fnew: FORL blacklisted" grep -q "^    blacklisted FORL at $CHUNK:$FORL_LINE$" "$dir/out"
		check "$v fnew: gate exits 3 ($rc)" test "$rc" = 3
		check "$v fnew: gate names the reason" grep -q "runs .*interpreted.*NYI: bytecode" "$dir/err"
		check "$v fnew: pprof jit_abort label" grep -q "^[0-9][0-9]*	$CHUNK:[0-9]* -- NYI: bytecode" \
			<(pprof_labels "$dir/out.pb.gz" jit_abort)
		check "$v fnew: JIT report on stderr beside pprof" grep -q "==== JIT health" "$dir/pb.err"
		if [ "$v" = deb-bin ]; then
			check "$v fnew: SVG tooltip names the abort" \
				grep -q "trace abort: $CHUNK:[0-9]* -- NYI: bytecode" "$dir/out.svg"
		fi ;;
	side)
		check "$v side: -jv has a side trace at the branch (line $SIDE_LINE)" \
			grep -q "^[0-9]*	[0-9]*/[0-9]*	$SIDE_LINE$" <(side_traces "$dir/ref")
		check "$v side: the target's -Ohotexit=7 -Otryside=3 read back" \
			grep -q "^(exits: counted up to hotexit=7, then the JIT tries a side trace 3 times" "$dir/out" ;;
	healthy)
		check "$v healthy: no abort" bash -c "! grep -q '^    abort' '$dir/out'"
		check "$v healthy: no blacklisted bytecode" bash -c "! grep -q '^    blacklisted' '$dir/out'"
		check "$v healthy: gate exits 0 ($rc)" test "$rc" = 0 ;;
	esac
}

for v in deb-bin or-bin; do
	if ! variant_cmd "$v" "$SCRIPT" >/dev/null 2>&1; then
		echo "SKIP: $v not built"
		continue
	fi
	for mode in $MODES; do
		run_case "$v" "$mode"
	done
done
# Non-GC64 (32-bit GCRefs, its own jit_State offsets): the closure case on
# OpenResty's build, the one with every message detail; and the side exit
# (32-bit PCs in the snapshot map).
for v in "${NOGC64_VARIANTS[@]}"; do
	if [ "$v" = or-nogc64-bin ]; then run_case "$v" fnew; run_case "$v" side; fi
done
# Many side traces (bench/workloads/tables.lua: chains of exit-0 side
# traces, exits sharing a PC): each side trace the report lists has -jv's
# parent and exit, never another; Tarantool's snapshots have no mcofs, so
# there an exit may be left ambiguous ("side of root R"), never wrong.
run_many_sides() {
	local v=$1 dir="$TMP/$1-tables" pid n pe line got listed=0 exact=0 bad=""
	mkdir -p "$dir"
	if [ "$v" = tarantool ]; then
		start_bg eval "exec tarantool -e 'require(\"jit.v\").start(\"$dir/ref\")' \
			'$TOP/bench/workloads/tables.lua' 8 >/dev/null"
	else
		start_bg eval "exec $(variant_cmd "$v" "-jv=$dir/ref" "$TOP/bench/workloads/tables.lua" 8) >/dev/null"
	fi
	pid=$BGPID
	sleep 2
	"$PROF" -p "$pid" -d 1.0 --jit --jit-hot 0 -o "$dir/out" 2>"$dir/err"
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	while IFS=$'\t' read -r n pe line; do
		got=$(grep -E "^    trace +$n tables.lua:$line " "$dir/out" | head -1)
		[ -n "$got" ] || continue
		listed=$((listed + 1))
		case $got in
		*" side of ${pe%/*}/exit ${pe#*/}") exact=$((exact + 1)) ;;
		*" side of root "*" (exit not unique)") [ "$v" = tarantool ] || bad="$bad $n:ambiguous" ;;
		*) bad="$bad $n($pe):${got##*side of }" ;;
		esac
	done < <(CHUNK=tables.lua MAXLINE=100000 side_traces "$dir/ref")
	if [ -z "$bad" ] && [ "$listed" -ge 5 ] && { [ "$v" = tarantool ] || [ "$exact" = "$listed" ]; }; then
		pass "$v tables: side traces' parent/exit as -jv ($exact of $listed listed exact, of $(CHUNK=tables.lua MAXLINE=100000 side_traces "$dir/ref" | wc -l) in -jv)"
	else
		fail "$v tables: side traces" "listed $listed, exact $exact, wrong:${bad:- none}"
	fi
}
variant_cmd deb-bin "$SCRIPT" >/dev/null 2>&1 && run_many_sides deb-bin
command -v tarantool >/dev/null && run_many_sides tarantool

# Tarantool's fork of 2.1.0-beta3 (its own jit_State offsets).
if command -v tarantool >/dev/null; then
	run_case tarantool fnew
else
	fail "tarantool" "not installed (tests/deps/apt.runtimes)"
fi

# nginx + Lua (Debian's nginx and lua-nginx-module on OpenResty's LuaJIT,
# tests/deps/setup-nginx.sh): the closure case as a request handler
# (tests/nginx/jit_fnew.lua) under wrk, its worker's own jit.v log the
# reference; the report attached to the running worker.
run_nginx() {
	local tree=$TOP/.deps/nginx run=$TMP/nginx port worker rc jitlib before after
	local orlib=$TOP/.deps/luajit2/usr/lib/$(gcc -dumpmachine 2>/dev/null || echo x86_64-linux-gnu)
	jitlib=$(dirname "$(ls -d "$TOP"/.deps/luajit2/usr/share/luajit-2.1*/jit 2>/dev/null | head -1)")
	if [ ! -x "$tree/usr/sbin/nginx" ] || [ ! -d "$jitlib/jit" ] || ! command -v wrk >/dev/null; then
		fail "nginx fnew" "needs .deps/nginx, .deps/luajit2 (tests/deps/setup-*.sh) and wrk"
		return
	fi
	mkdir -p "$run"
	port=$((20000 + RANDOM % 20000))
	sed -e "s|@DIR@|$run|g; s|@TREE@|$tree|g; s|@LUA@|$TOP/tests/nginx|g; s|@PORT@|$port|g" \
		-e "s|@JITLIB@|$jitlib|g" "$TOP/tests/nginx/jit.conf.in" > "$run/nginx.conf"
	start_bg env LD_LIBRARY_PATH="$orlib" "$tree/usr/sbin/nginx" -p "$run" -c "$run/nginx.conf" \
		-e "$run/error.log"
	local master=$BGPID
	for _ in $(seq 100); do
		worker=$(pgrep -P "$master" | head -1)
		[ -n "$worker" ] && curl -sf "http://127.0.0.1:$port/fnew" >/dev/null 2>&1 && break
		worker=
		sleep 0.1
	done
	if [ -z "$worker" ]; then
		fail "nginx fnew: server" "$(tail -c 300 "$run/error.log" | tr '\n' '|')"
		kill "$master" 2>/dev/null
		return
	fi
	start_bg wrk -t1 -c1 -d20s "http://127.0.0.1:$port/fnew"
	local load=$BGPID
	start_bg wrk -t1 -c1 -d20s "http://127.0.0.1:$port/side"
	local load2=$BGPID
	sleep 1
	before=$(curl -sf "http://127.0.0.1:$port/traces")
	"$PROF" -p "$worker" -d 1.5 --jp Fv --jit --jit-hot 5 --fail-if-interpreted 20 -o "$run/out" \
		2>"$run/err"
	rc=$?
	after=$(curl -sf "http://127.0.0.1:$port/traces")
	kill "$load" "$load2" "$master" 2>/dev/null
	wait "$load" "$load2" "$master" 2>/dev/null
	# The hot code is side() and work(), above the handlers; the handlers'
	# own trace starts hold no samples of their own, so the report leaves
	# them out.
	CHUNK=jit_fnew.lua MAXLINE=$(grep -n '^-- The handlers' "$TOP/tests/nginx/jit_fnew.lua" | cut -d: -f1)
	check_aborts "nginx fnew" "$run/jv.log" "$run/out"
	check_interp_share "nginx fnew" "$run/out"
	check_sides "nginx side" "$run/jv.log" "$run/out"
	local forl=$(($(grep -n 'local f = function() return i end' "$TOP/tests/nginx/jit_fnew.lua" | cut -d: -f1) - 1))
	local branch=$(grep -n 'local v = vals\[' "$TOP/tests/nginx/jit_fnew.lua" | cut -d: -f1)
	check "nginx side: -jv has a side trace at the branch (line $branch)" \
		grep -q "^[0-9]*	[0-9]*/[0-9]*	$branch$" <(side_traces "$run/jv.log")
	CHUNK=jit_health.lua MAXLINE=$(grep -n '^-- The driver' "$SCRIPT" | cut -d: -f1)
	check "nginx fnew: the handler's loop is blacklisted" \
		grep -q "^    blacklisted FORL at jit_fnew.lua:$forl$" "$run/out"
	check "nginx fnew: gate exits 3 ($rc)" test "$rc" = 3
	if [ -n "$before" ] && [ "$before" = "$after" ]; then
		pass "nginx: trace count unchanged by profiling ($before)"
	else
		fail "nginx: trace count" "before/after: '$before' '$after'"
	fi
	echo "info: nginx report: $(sed -n '/==== JIT health/,$p' "$run/out" | tr '\n' '|')"
}
run_nginx
