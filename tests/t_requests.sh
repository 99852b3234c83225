#!/bin/bash
# SPDX-License-Identifier: MIT
# nginx requests read from outside (user/nginx/): `dump` of both workers
# of Debian's nginx + lua-nginx-module, on OpenResty's LuaJIT GC64 and
# non-GC64, with requests of distinct known paths waiting in ngx.sleep
# in known phases (tests/nginx/requests.lua):
#   - each content request is listed once, by its path, method GET,
#     phase content, location /content/, server requests.test; the query
#     (a token) only with --with-query;
#   - a rewrite and an access request in their phases; a light thread
#     under its request (the same ngx_http_request_t); each worker's
#     timer as a timer, with no request's labels;
#   - ages: the requests were sent 200 ms apart from this shell (no curl
#     start-up in between), so two requests' ages differ by what their
#     send times differ, within 100 ms; every age lies within 100 ms of
#     the interval [dump started, dump ended] minus its send time;
#   - --sort age lists the requests oldest first.
#   - not nginx: a LuaJIT program whose coroutine's exdata points at a fake
#     "HTTP" (tests/workloads/fake_exdata.lua): dump says in one line that
#     no layout row verifies, by name, and lists the coroutine anyway.
source "$(dirname "$0")/lib.sh"
source "$TOP/tests/nginx/lib.sh"
trap 'close_all; cleanup_children; [ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT

N=8
GAP_MS=200

# now_ms: NOW, the wall clock in ms, read without a fork (a fork under
# load takes tens of ms, which would blur the truth of the ages).
now_ms() {
	local t=${EPOCHREALTIME/[.,]/}
	NOW=$((t / 1000))
}

# send PATH: GET PATH on a connection kept open (its fd in FDS), the
# time it was sent in SENT (ms).
FDS=() SENT=()
send() {
	local fd
	exec {fd}<>"/dev/tcp/127.0.0.1/$PORT" || return 1
	printf 'GET %s HTTP/1.1\r\nHost: requests.test\r\n\r\n' "$1" >&"$fd"
	now_ms
	SENT+=("$NOW")
	FDS+=("$fd")
}

close_all() {
	local fd
	for fd in "${FDS[@]}"; do exec {fd}>&-; done
	FDS=() SENT=()
}

# wait_sleepers N: until N handlers wait (each worker counts in the dict).
wait_sleepers() {
	for _ in $(seq 100); do
		[ "$(http_get /truth)" = "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

variant() {
	local name=$1 lib=$2 t0 t1 i
	OR_LIB=$lib RUN=$TMP/$name
	if ! start_nginx requests.conf.in; then
		fail "$name: nginx + Lua starts" "$(tr '\n' '|' < "$RUN/error.log")"
		return
	fi
	for i in $(seq "$N"); do
		send "/content/item/$i?token=secret-$i"
		sleep "0.$GAP_MS"
	done
	send /rewrite/r1
	send /access/a1
	send /threads/t1
	if ! wait_sleepers $((N + 3)); then
		fail "$name: requests wait" "$(http_get /truth) of $((N + 3)) in ngx.sleep"
	fi
	now_ms
	t0=$NOW
	timeout 30 "$PROF" dump -p "$(IFS=,; echo "${WORKERS[*]}")" --json --sort age \
		> "$RUN/dump.json" 2> "$RUN/dump.err"
	local rc=$?
	now_ms
	t1=$NOW
	timeout 30 "$PROF" dump -p "$(IFS=,; echo "${WORKERS[*]}")" --json --with-query \
		> "$RUN/query.json" 2> "$RUN/query.err"
	timeout 30 "$PROF" dump -p "$(IFS=,; echo "${WORKERS[*]}")" --sort age \
		> "$RUN/dump.txt" 2> "$RUN/dump.err.txt"
	if [ $rc -ne 0 ]; then
		fail "$name: dump" "exit $rc: $(tr '\n' '|' < "$RUN/dump.err")"
	else
		python3 "$TOP/tests/requests_check.py" "$name" "$RUN/dump.json" "$RUN/query.json" \
			"$N" "$GAP_MS" "$t0" "$t1" "${SENT[@]:0:$N}" ||
			fail "$name: dump check" "tests/requests_check.py exited $?"
	fi
	if grep -q 'nginx request GET /content/item/1, phase content' "$RUN/dump.txt" &&
	   grep -q '^    nginx timer$' "$RUN/dump.txt" && ! grep -q secret "$RUN/dump.txt"; then
		pass "$name: the text view shows requests, phases and timers, no query"
	else
		fail "$name: text view" "$(grep nginx "$RUN/dump.txt" | head -5 | tr '\n' '|')"
	fi
	close_all
	kill "$MASTER" 2>/dev/null
	wait "$MASTER" 2>/dev/null
}

# refused: the program above; its coroutine and frames still listed.
refused() {
	local lib=$TOP/.deps/luajit2/usr/lib/$MACH out=$TMP/fake.out pid
	start_bg env LD_LIBRARY_PATH="$lib" "$TOP/.deps/luajit2/usr/bin/luajit" \
		"$WL/fake_exdata.lua" > "$out"
	pid=$BGPID
	for _ in $(seq 50); do grep -q ready "$out" && break; sleep 0.1; done
	"$PROF" dump -p "$pid" > "$TMP/fake.txt" 2> "$TMP/fake.err"
	local rc=$? lines
	lines=$(grep -c 'nginx requests not read' "$TMP/fake.err")
	if [ $rc -eq 0 ] && [ "$lines" = 1 ] &&
	   grep -q "no layout row verifies ('nginx 1.22 --with-compat, lua-nginx-module 0.10.23': " "$TMP/fake.err" &&
	   grep -q 'coroutine.yield' "$TMP/fake.txt" && grep -q 'fake_exdata.lua:13)' "$TMP/fake.txt" && ! grep -q '^    nginx' "$TMP/fake.txt"; then
		pass "not nginx: one line refuses the layout by name; the coroutine is listed without labels"
	else
		fail "not nginx: refusal" "exit $rc, $lines lines: $(tr '\n' '|' < "$TMP/fake.err") $(head -c 600 "$TMP/fake.txt")"
	fi
	kill "$pid" 2>/dev/null
}

if [ ! -x "$TREE/usr/sbin/nginx" ]; then
	fail "nginx present" "no $TREE (run tests/deps/setup-nginx.sh)"
	exit 0
fi
MACH=$(gcc -dumpmachine 2>/dev/null || echo x86_64-linux-gnu)
refused
variant gc64 "$TOP/.deps/luajit2/usr/lib/$MACH"
if [ -d "$TOP/.deps/luajit2-nogc64/usr/lib/$MACH" ]; then
	variant nogc64 "$TOP/.deps/luajit2-nogc64/usr/lib/$MACH"
else
	echo "SKIP: nogc64: no .deps/luajit2-nogc64"
fi
