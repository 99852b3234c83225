#!/bin/bash
# SPDX-License-Identifier: MIT
# Off-CPU and wall profiles of nginx + Lua under wrk: the handler
# (tests/nginx/offcpu.lua) computes in compute() and blocks the worker in
# block() (a loop of FFI usleep calls) for lengths that vary by request,
# and adds each part's CLOCK_MONOTONIC time to a shared dict per worker.
# On the busier worker, against the truth read before and after:
#   - wall: block's share of compute + block within TOL points;
#   - off-CPU: all the blocked time with a Lua stack is under
#     offcpu.lua:block (the Lua function that called usleep).
source "$(dirname "$0")/lib.sh"
source "$TOP/tests/nginx/lib.sh"

HZ=997
SECS=4
TOL=3
RUN=$TMP/nginx

# lshare FILE REGEX: percentage of the weight of lines through compute or
# block on lines matching REGEX.
lshare() {
	awk -v re="$2" '/;offcpu\.lua:(compute|block)(;| )/ { n = $NF; t += n; if ($0 ~ re) m += n }
		END { printf "%.1f\n", t ? 100 * m / t : -1 }' "$1"
}

if [ ! -x "$TREE/usr/sbin/nginx" ] || [ ! -f "$TREE/usr/lib/nginx/modules/ngx_http_lua_module.so" ]; then
	fail "nginx + Lua present" "no $TREE (run tests/deps/setup-nginx.sh)"
	exit 0
fi
command -v wrk >/dev/null || { fail "wrk present" "install wrk (tests/deps/apt.variants)"; exit 0; }
if ! start_nginx offcpu.conf.in; then
	fail "nginx + Lua starts" "$(tr '\n' '|' < "$RUN/error.log")"
	exit 0
fi
start_bg wrk -t2 -c8 -d60s "http://127.0.0.1:$PORT/work"
sleep 1.5	# every worker has served requests: handler loaded, traces compiled

ticks() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $12 + $13 }'; }

for ev in wall off-cpu; do
	# The busier worker, chosen anew for each window: a worker wrk's
	# connections left blocks once in epoll_wait and weighs nothing.
	t0=$(ticks "${WORKERS[0]}") t1=$(ticks "${WORKERS[1]}")
	sleep 0.5
	w=${WORKERS[0]}
	[ $(($(ticks "${WORKERS[1]}") - t1)) -gt $(($(ticks "${WORKERS[0]}") - t0)) ] && w=${WORKERS[1]}
	# The truth over the profiled window: from the moment the sched_switch
	# program is attached (sampling costs the worker CPU time, which
	# lengthens compute() while it runs) to the profiler's end.
	"$PROF" -e "$ev" -p "$w" -d "$SECS" -F "$HZ" -f folded -o "$RUN/$ev.folded" 2>"$RUN/$ev.err" &
	lbp=$!
	for ((i = 0; i < 600; i++)); do
		grep -qs 'link_type:.raw_tracepoint' /proc/$lbp/fdinfo/* && break
		sleep 0.02
	done
	before=$(http_get "/truth?pid=$w")
	wait "$lbp"
	after=$(http_get "/truth?pid=$w")
	want=$(echo "$before $after" | awk '{ c = $3 - $1; b = $4 - $2
		if (c + b > 0) printf "%.1f\n", 100 * b / (c + b) }')
	if [ -z "$want" ] || ! grep -q 'offcpu\.lua:block' "$RUN/$ev.folded"; then
		fail "$ev: profile and truth" "$(tr '\n' '|' < "$RUN/$ev.err")"
		continue
	fi
	if [ "$ev" = wall ]; then
		within "wall: block's share of compute + block" \
			"$(lshare "$RUN/$ev.folded" ';offcpu\.lua:block(;| )')" "$want"
	else
		grep -v 'waiting for a CPU' "$RUN/$ev.folded" >"$RUN/blocked"
		within "off-cpu: the blocked Lua time is under block" \
			"$(lshare "$RUN/blocked" ';offcpu\.lua:block(;| )')" 100
		check "off-cpu: summary line" grep -Eq '^luabpfprof: off-cpu [0-9.]+ s = blocked [0-9.]+ s' "$RUN/$ev.err"
	fi
done
cleanup_children
