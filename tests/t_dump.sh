#!/bin/bash
# SPDX-License-Identifier: MIT
# `luabpfprof dump`: every coroutine's stack, read at once from outside.
#   - dump_coros.lua on every LuaJIT build here, GC64 and non-GC64: 120
#     coroutines suspended two or three calls deep, 30 nested pairs, 24
#     never resumed, a few dead, and main -> outer -> inner with inner
#     blocked in io.open on a FIFO (main and outer "normal").  The program
#     wrote each coroutine's frames and lines with debug.getinfo on the
#     line that yields (truth by construction); --json must list every one
#     with its status, lines and names, and --locals the values it wrote
#     (tests/dump_check.py); the text view lists the same leaf frames.
#   - a main thread spinning in a compiled loop (dump_spin.lua): running,
#     its last two Lua frames spin() at the loop's line (the trace's
#     start) and the main chunk at the line that called it.
#   - a heap that churns as fast as the VM can (dump_churn.lua): five
#     dumps each end, exit 0 and report their unread counts.
#   - nginx: N requests each waiting in ngx.sleep inside a known handler;
#     dump of both workers lists N request coroutines at that line.
#   - bad input: a PID that is gone, dump's options without dump.
source "$(dirname "$0")/lib.sh"
source "$TOP/tests/variants.sh"

N=120
NGINX_N=20

# wait_file FILE SECS: until FILE exists.
wait_file() {
	for _ in $(seq $(($2 * 10))); do [ -s "$1" ] && return 0; sleep 0.1; done
	return 1
}

# coros LABEL: dump_coros.lua on one build, checked.
coros() {
	local v=$1 d=$TMP/$1 leaf
	mkdir -p "$d" && mkfifo "$d/fifo"
	start_bg variant_exec "$v" "$WL/dump_coros.lua" "$d/truth" "$d/fifo" "$N"
	if ! wait_file "$d/truth.ready" 30; then
		fail "$v: workload" "never ready"
		return
	fi
	if ! timeout 30 "$PROF" dump -p "$BGPID" --json --locals > "$d/dump.json" 2> "$d/err"; then
		fail "$v: dump --json --locals" "exit $?: $(tr '\n' '|' < "$d/err")"
	elif python3 "$TOP/tests/dump_check.py" "$d/truth" "$d/dump.json" --locals > "$d/check" 2>&1; then
		pass "$v: dump --json --locals matches the truth ($(head -n1 "$d/check"))"
	else
		fail "$v: dump --json --locals" "$(tr '\n' '|' < "$d/check" | head -c 1500)"
	fi
	leaf=$(grep -n 'record(co, "suspended"); coroutine.yield(count)' "$WL/dump_coros.lua" | cut -d: -f1)
	if ! timeout 30 "$PROF" dump -p "$BGPID" > "$d/dump.txt" 2> "$d/err.txt"; then
		fail "$v: dump" "exit $?: $(tr '\n' '|' < "$d/err.txt")"
	else
		local leaves fresh
		leaves=$(grep -c "^    leaf (.*dump_coros.lua:$leaf)\$" "$d/dump.txt")
		fresh=$(grep -c '(not started)$' "$d/dump.txt")
		if [ "$leaves" -eq "$N" ] && [ "$fresh" -eq $((N / 5)) ] &&
		   grep -q '^Thread 0x[0-9a-f]* main, normal$' "$d/dump.txt" &&
		   grep -A1 ' running$' "$d/dump.txt" | grep -q '^    io.open$'; then
			pass "$v: text: $leaves leaf frames at line $leaf, $fresh not started, main normal, inner running in io.open"
		else
			fail "$v: text" "$leaves leaf frames at :$leaf (want $N), $fresh not started (want $((N / 5))): $(head -c 1500 "$d/dump.txt" | tr '\n' '|')"
		fi
	fi
	kill "$BGPID" 2>/dev/null
}

for v in "${VARIANTS[@]}" "${NOGC64_VARIANTS[@]}"; do
	coros "$v"
done

# --- a spinning main thread ----------------------------------------------------------
spin() {
	local v=$1 d=$TMP/spin-$1 loop call got
	mkdir -p "$d"
	loop=$(grep -n -- '-- LOOP$' "$WL/dump_spin.lua" | cut -d: -f1)
	call=$(grep -n -- '-- CALL$' "$WL/dump_spin.lua" | cut -d: -f1)
	start_bg variant_exec "$v" "$WL/dump_spin.lua" "$d/ready"
	if ! wait_file "$d/ready" 30; then
		fail "$v: spin workload" "never ready"
		return
	fi
	if ! timeout 30 "$PROF" dump -p "$BGPID" --json > "$d/dump.json" 2> "$d/err"; then
		fail "$v: dump of a spinning thread" "exit $?: $(tr '\n' '|' < "$d/err")"
	else
		got=$(python3 -c '
import json, sys
t = [t for t in json.load(open(sys.argv[1]))["vms"][0]["threads"] if t["main"]][0]
lua = [f for f in t["frames"] if f["chunk"]]
print(t["status"], " ".join("%s:%d" % (f["function"], f["line"]) for f in lua[-2:]))' "$d/dump.json")
		if [ "$got" = "running spin:$loop dump_spin.lua:0:$call" ]; then
			pass "$v: a spinning main thread: $got"
		else
			fail "$v: a spinning main thread" "got '$got', want 'running spin:$loop dump_spin.lua:0:$call'"
		fi
	fi
	kill "$BGPID" 2>/dev/null
}
for v in "${VARIANTS[@]}" "${NOGC64_VARIANTS[@]}"; do
	case $v in *-bin) spin "$v" ;; esac
done

# --- churn ---------------------------------------------------------------------
churn() {
	local v=$1 d=$TMP/churn-$1 ok=0 figures=""
	mkdir -p "$d"
	start_bg variant_exec "$v" "$WL/dump_churn.lua" "$d/ready"
	if ! wait_file "$d/ready" 30; then
		fail "$v: churn workload" "never ready"
		return
	fi
	for k in 1 2 3 4 5; do
		if timeout 30 "$PROF" dump -p "$BGPID" --json --locals > "$d/$k.json" 2> "$d/$k.err" &&
		   figures+=$(python3 -c '
import json, sys
vm = json.load(open(sys.argv[1]))["vms"][0]
u = vm["unread"]
assert len(vm["threads"]) > 0
print(" %d threads/%d unreadable/%d torn/%d unknown;" % (len(vm["threads"]), u["threads"], u["torn"], u["unknown_frames"]), end="")
' "$d/$k.json" 2>> "$d/$k.err"); then
			ok=$((ok + 1))
		fi
	done
	if [ "$ok" -eq 5 ]; then
		pass "$v: 5 dumps of a churning heap end with exit 0 and their counts:$figures"
	else
		fail "$v: churn" "$ok of 5 dumps: $(cat "$d"/*.err | tr '\n' '|' | head -c 800)"
	fi
	kill "$BGPID" 2>/dev/null
}
churn deb-bin
[ ${#NOGC64_VARIANTS[@]} -gt 0 ] && churn "${NOGC64_VARIANTS[0]}"

# --- nginx ---------------------------------------------------------------------
nginx_dump() {
	source "$TOP/tests/nginx/lib.sh"
	RUN=$TMP/nginx
	local line got
	if [ ! -x "$TREE/usr/sbin/nginx" ]; then
		fail "nginx present" "no $TREE (run tests/deps/setup-nginx.sh)"
		return
	fi
	if ! start_nginx dump.conf.in; then
		fail "nginx + Lua starts" "$(tr '\n' '|' < "$RUN/error.log")"
		return
	fi
	for i in $(seq "$NGINX_N"); do
		start_bg curl -s --max-time 100 -o /dev/null "http://127.0.0.1:$PORT/sleep?id=$i"
	done
	for _ in $(seq 100); do
		[ "$(http_get /truth)" = "$NGINX_N" ] && break
		sleep 0.1
	done
	line=$(grep -n 'DUMP_SLEEP_LINE' "$TOP/tests/nginx/dump_sleep.lua" | cut -d: -f1)
	if ! timeout 30 "$PROF" dump -p "$(IFS=,; echo "${WORKERS[*]}")" --json --locals > "$RUN/dump.json" 2> "$RUN/dump.err"; then
		fail "nginx: dump" "exit $?: $(tr '\n' '|' < "$RUN/dump.err")"
		return
	fi
	got=$(python3 -c '
import json, sys
n = 0
for vm in json.load(open(sys.argv[1]))["vms"]:
    for t in vm["threads"]:
        lua = [f for f in t["frames"] if f["chunk"]]
        if t["status"] == "suspended" and lua and lua[0]["chunk"].endswith("dump_sleep.lua") \
           and lua[0]["line"] == int(sys.argv[2]) and lua[0]["function"] == "handler" \
           and t["frames"][0]["function"] == "ngx.sleep" \
           and any(l["name"] == "request_id" for l in lua[0]["locals"]):
            n += 1
print(n)' "$RUN/dump.json" "$line")
	if [ "$got" = "$NGINX_N" ]; then
		pass "nginx: dump lists $got request coroutines in ngx.sleep at dump_sleep.lua:$line"
	else
		fail "nginx: dump" "$got request coroutines at dump_sleep.lua:$line, want $NGINX_N: $(head -c 1500 "$RUN/dump.json")"
	fi
}
nginx_dump

# --- bad input -------------------------------------------------------------------
"$PROF" dump -p 999999 > "$TMP/gone.out" 2> "$TMP/gone.err"
rc=$?
if [ $rc -ne 0 ] && [ "$(wc -l < "$TMP/gone.err")" -eq 1 ]; then
	pass "dump of a gone PID: exit $rc, one line: $(cat "$TMP/gone.err")"
else
	fail "dump of a gone PID" "exit $rc: $(tr '\n' '|' < "$TMP/gone.err")"
fi
"$PROF" -p 1 --locals > /dev/null 2> "$TMP/opt.err"
rc=$?
check "--locals without dump: exit 2 ($(cat "$TMP/opt.err"))" [ $rc -eq 2 ]
