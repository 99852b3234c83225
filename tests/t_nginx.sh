#!/bin/bash
# SPDX-License-Identifier: MIT
# nginx + Lua under load: Debian's nginx and lua-nginx-module on OpenResty's
# LuaJIT (extracted by tests/deps/setup-nginx.sh, never installed), two
# workers, each request a coroutine resumed from C.  The handler
# (tests/nginx/handler.lua) splits its CPU 2:1 between parse and render and
# measures that split itself (os.clock per part, per worker).  Under wrk
# load on loopback:
#   - one worker's PID: the profiled parse:render split is within 6 points
#     of the in-process truth over the same window, unwind errors < 1%;
#   - all workers of the master (-p W1,W2, and -p MASTER, which follows
#     the forked workers): by default one report, one flame graph root and
#     one pprof profile (pid as a label) with the split of both workers
#     together; with --per-process one section per worker, each with its
#     split.
source "$(dirname "$0")/lib.sh"
source "$TOP/tests/nginx/lib.sh"

HZ=999
SECS=3
TOL=6
RUN=$TMP/nginx

# truth PID: "parse render" CPU seconds measured inside worker PID so far.
truth() {
	http_get "/truth?pid=$1"
}

# split_truth BEFORE AFTER: parse's percentage of parse + render between
# two truth() readings.
split_truth() {
	echo "$1 $2" | awk '{ p = $3 - $1; r = $4 - $2
		if (p + r > 0) printf "%.1f\n", 100 * p / (p + r) }'
}

# split_folded FILE [PID]: parse's percentage of parse + render in a folded
# profile (leaf frames), and the two counts.
split_folded() {
	awk '{ n = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";")
		if (f[k] == "handler.lua:parse") p += n
		else if (f[k] == "handler.lua:render") r += n }
		END { if (p + r > 0) printf "%.1f %d %d\n", 100 * p / (p + r), p, r }' "$1"
}

# near_f GOT WANT TOL: |GOT - WANT| <= TOL for decimals.
near_f() {
	[ -n "$1" ] && [ -n "$2" ] && awk -v a="$1" -v b="$2" -v t="$3" \
		'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'
}

# summary_field FILE WORD: the number before WORD in the summary line.
summary_field() {
	grep -o "[0-9]* $2" "$1" | head -n1 | cut -d' ' -f1
}

if [ ! -x "$TREE/usr/sbin/nginx" ] || [ ! -f "$TREE/usr/lib/nginx/modules/ngx_http_lua_module.so" ]; then
	fail "nginx + Lua present" "no $TREE (run tests/deps/setup-nginx.sh)"
	exit 0
fi
command -v wrk >/dev/null || { fail "wrk present" "install wrk (tests/deps/apt.variants)"; exit 0; }
if ! start_nginx; then
	fail "nginx + Lua starts" "$(tr '\n' '|' < "$RUN/error.log")"
	exit 0
fi
pass "nginx + Lua starts: master $MASTER, workers ${WORKERS[*]}, port $PORT"

start_bg wrk -t2 -c16 -d120s "http://127.0.0.1:$PORT/work"	# killed at the end
WRK=$BGPID
sleep 1.5	# every worker has served requests: handler loaded, traces compiled

# --- one worker ---------------------------------------------------------------
# The busier one over half a second: the connections need not be spread
# evenly, and the split is measured on the worker that serves them.
ticks() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $12 + $13 }'; }
t0=$(ticks "${WORKERS[0]}") t1=$(ticks "${WORKERS[1]}")
sleep 0.5
w=${WORKERS[0]}
[ $(($(ticks "${WORKERS[1]}") - t1)) -gt $(($(ticks "${WORKERS[0]}") - t0)) ] && w=${WORKERS[1]}
before=$(truth "$w")
"$PROF" -p "$w" -d "$SECS" -F "$HZ" --jp F >"$RUN/w.F" 2>"$RUN/w.F.err" &
p1=$!
"$PROF" -p "$w" -d "$SECS" -F "$HZ" -f folded >"$RUN/w.folded" 2>"$RUN/w.folded.err"
wait "$p1"
after=$(truth "$w")

want=$(split_truth "$before" "$after")
read -r got np nr <<< "$(split_folded "$RUN/w.folded")"
samples=$(summary_field "$RUN/w.F.err" samples)
errs=$(sed -n 's/.*unwind: \([0-9]*\) bad frame, \([0-9]*\) truncated, \([0-9]*\) read fault.*/\1 \2 \3/p' \
	"$RUN/w.F.err" | awk '{ print $1 + $2 + $3 }')
echo "info: worker $w: in-process truth parse ${want}%, profiled ${got}% (parse $np, render $nr samples); text view: $(tr '\n' '|' < "$RUN/w.F"); $(cat "$RUN/w.F.err")"
margin "nginx worker: parse:render split" "$got" "$want" "$TOL"
if near_f "$got" "$want" "$TOL"; then pass "nginx worker: parse:render split ${got}% vs in-process ${want}%"
else fail "nginx worker: parse:render split" "profiled '${got}'% vs in-process '${want}'% (±$TOL)"; fi
check_share "nginx worker: text view names the handler's parse" "$RUN/w.F" handler.lua:parse \
	"${want%.*}" "$((TOL + 3))"
if [ -n "$samples" ] && [ "$samples" -ge 500 ] && [ -n "$errs" ] &&
   [ $((errs * 100)) -lt "$samples" ]; then
	pass "nginx worker: unwind errors $errs of $samples samples (< 1%)"
else
	fail "nginx worker: unwind errors" "'$errs' of '$samples' samples: $(cat "$RUN/w.F.err")"
fi
# Cut stacks now show their cause ([unknown: bad frame], [unknown: read
# fault]); those are the unwind errors counted above.  No frame may fail
# symbolization, and no key may be an empty stack.
check "nginx worker: no unknown frames" bash -c "! grep -q 'unknown: \(unresolved\|VM gone\|stack lost\)' '$RUN/w.F' '$RUN/w.folded' && ! grep -q '%  \[unknown: empty stack\]' '$RUN/w.F'"
check "nginx worker: the handler runs in the request coroutine's main chunk" \
	grep -q 'content_by_lua(nginx.conf:[0-9]*):0;handler.lua:work;handler.lua:parse ' "$RUN/w.folded"

# --- every worker of the master ---------------------------------------------------
mapfile -t kids < <(pgrep -P "$MASTER")
list=$(IFS=,; echo "${kids[*]}")
"$PROF" -p "$list" -d "$SECS" -F "$HZ" --jp F --per-process >"$RUN/all.F" 2>"$RUN/all.F.err"
check "nginx master $MASTER: ${#kids[@]} workers" test "${#kids[@]}" -eq 2
for k in "${kids[@]}"; do
	awk -v pid="$k" '/^=== PID [0-9]+ \(/ { on = ($3 == pid); next } on' "$RUN/all.F" > "$RUN/all.$k"
	t=$(truth "$k")
	# Whole-run truth of this worker: its split since it started.
	want=$(split_truth "0 0" "$t")
	p=$(share "$RUN/all.$k" handler.lua:parse)
	r=$(share "$RUN/all.$k" handler.lua:render)
	got=$( [ -n "$p" ] && [ -n "$r" ] && awk -v p="$p" -v r="$r" 'BEGIN { printf "%.1f\n", 100 * p / (p + r) }')
	margin "nginx worker $k (via master): split" "$got" "$want" "$TOL"
	if near_f "$got" "$want" "$TOL"; then pass "nginx worker $k (via master): split ${got}% vs in-process ${want}%"
	else fail "nginx worker $k (via master): split" "got '${got}'% want '${want}'%: $(tr '\n' '|' < "$RUN/all.F")"; fi
done
# Given the master's PID, its workers (forked, same program) are followed;
# by default they merge into one view: text, folded, SVG and pprof of the
# same window, against the sum of both workers' in-process truth.
t0=$(for k in "${kids[@]}"; do truth "$k"; done | awk '{ p += $1; r += $2 } END { print p, r }')
mp=()
for f in "--jp F:merged.F" "-f folded:merged.folded" "-f svg:merged.svg" "-f pprof:merged.pb.gz"; do
	# shellcheck disable=SC2086
	"$PROF" -p "$MASTER" -d "$SECS" -F "$HZ" ${f%%:*} >"$RUN/${f#*:}" 2>"$RUN/${f#*:}.err" &
	mp+=($!)
done
wait "${mp[@]}"
t1=$(for k in "${kids[@]}"; do truth "$k"; done | awk '{ p += $1; r += $2 } END { print p, r }')
want=$(split_truth "$t0" "$t1")
check "nginx -p MASTER: the workers merge into one report (no section header)" \
	bash -c "! grep -q '^===' '$RUN/merged.F' && grep -q handler.lua:parse '$RUN/merged.F'"
p=$(share "$RUN/merged.F" handler.lua:parse)
r=$(share "$RUN/merged.F" handler.lua:render)
got=$( [ -n "$p" ] && [ -n "$r" ] && awk -v p="$p" -v r="$r" 'BEGIN { printf "%.1f\n", 100 * p / (p + r) }')
margin "nginx merged report: split" "$got" "$want" "$TOL"
if near_f "$got" "$want" "$TOL"; then pass "nginx merged report: split ${got}% vs both workers in-process ${want}%"
else fail "nginx merged report: split" "got '${got}'% want '${want}'%: $(tr '\n' '|' < "$RUN/merged.F")"; fi
check "nginx merged folded: one nginx root, no pid frame" \
	bash -c "[ -s '$RUN/merged.folded' ] && ! grep -qv '^nginx;' '$RUN/merged.folded' && ! grep -q '^nginx;[0-9]*;' '$RUN/merged.folded'"
check "nginx merged flame graph: one nginx frame" \
	test "$(grep -c '<title>nginx$' "$RUN/merged.svg")" -eq 1
if command -v go >/dev/null; then
	export HOME=$TMP/home GOCACHE=$TMP/gocache GOPATH=$TMP/gopath GOFLAGS=-mod=mod \
		GOTOOLCHAIN=local GOPROXY=off GOTELEMETRY=off
	mkdir -p "$HOME"
	go tool pprof -tags "$RUN/merged.pb.gz" >"$RUN/merged.tags" 2>&1
	n=0
	for k in "${kids[@]}"; do grep -qw "$k" "$RUN/merged.tags" && n=$((n + 1)); done
	check "nginx merged pprof: both workers' pids as labels" test "$n" -eq "${#kids[@]}"
fi
"$PROF" -p "$MASTER" -d "$SECS" -F "$HZ" --jp F --per-process >"$RUN/master.F" 2>"$RUN/master.F.err"
check "nginx: -p MASTER --per-process reports every worker" \
	test "$(grep -c '^=== PID' "$RUN/master.F")" -ge 2
check "nginx: -p MASTER says it follows the forked workers" \
	grep -q "PID $MASTER (nginx) forked PID [0-9]* running the same program: profiling it too" "$RUN/master.F.err"
for k in "${kids[@]}"; do
	check "nginx: -p MASTER: worker $k's handler in its own section" \
		bash -c "awk -v pid=$k '/^=== PID [0-9]+ \\(/ { on = (\$3 == pid); next } on' '$RUN/master.F' | grep -q handler.lua:parse"
done

kill "$WRK" 2>/dev/null
wait "$WRK" 2>/dev/null
kill -QUIT "$MASTER" 2>/dev/null
wait "$MASTER" 2>/dev/null
cleanup_children
