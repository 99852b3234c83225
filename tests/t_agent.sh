#!/bin/bash
# SPDX-License-Identifier: MIT
# Continuous mode end to end, against tests/ingest (our own ingest server:
# Pyroscope's /ingest and Push routes and Parca's writeraw, every body
# parsed with the real pprof library; it proves the documented contract,
# not acceptance by a real backend).
#  - 60 s at --every 10s on two processes (Debian luajit, a host on
#    OpenResty's libluajit): 6 valid profiles per process with the right
#    labels, back to back, whose totals equal a one-shot run's within 1%
#    at 999 Hz (the period jitter is off, LUABPFPROF_NO_JITTER=1: with it
#    a burst the busy host keeps the sampler from re-jittering sees one
#    period drawn within +-10%, and three samplers of the same bursts
#    differ by up to 4.6%, which hides a lost second);
#    the server is killed mid-run and restarted: no interval lost or sent
#    twice (disk spool).
#  - Push API and Parca bodies, --service, tenant and credentials headers;
#    a spool that overflows (drops counted and logged); a disk spool carried
#    over to the next run; a backend that refuses; rolling files with
#    retention by count and size; SIGTERM flushes the current interval;
#    bad options give one line and a nonzero exit.
# Everything runs in parallel during the 60 s window.
source "$(dirname "$0")/lib.sh"
source "$TOP/tests/variants.sh"

GO_FILE=$TMP/go

# --- the ingest server ------------------------------------------------------

# Record lines are tab-separated key=value fields; R[key] after rec().
AWK_REC='
function rec(   i, k) {
	delete R
	R["status"] = $1
	for (i = 2; i <= NF; i++) { k = index($i, "="); R[substr($i, 1, k - 1)] = substr($i, k + 1) }
}
function label(name,   n, a, i) {
	n = split(R["labels"], a, ",")
	for (i = 1; i <= n; i++) if (index(a[i], name "=") == 1) return substr(a[i], length(name) + 2)
	return ""
}'

# records LOG AWK-BODY: runs AWK-BODY on every ok record (after rec()).
records() {
	awk -F'\t' "$AWK_REC"'
		$1 == "ok" { rec(); '"$2"' }' "$1"
}

if ! build_ingest >"$TMP/build.log" 2>&1; then
	fail "ingest server builds (GOPATH mode, golang-github-google-pprof-dev)" "$(tr '\n' '|' < "$TMP/build.log")"
	exit 0
fi
pass "ingest server builds offline against Debian's pprof library"

start_ingest "$TMP/s1.log" 0 || { fail "ingest server starts" "$(cat "$TMP/s1.log.out")"; exit 0; }
S1=$SRV S1_PORT=$SRV_PORT
start_ingest "$TMP/s2.log" 0 || { fail "second ingest server starts" ""; exit 0; }
S2_PORT=$SRV_PORT
start_ingest "$TMP/s3.log" 0 -reject || { fail "refusing ingest server starts" ""; exit 0; }
S3_PORT=$SRV_PORT
DEAD_PORT=$((S1_PORT + 1))	# nothing listens there (checked below)
while (exec 3<>"/dev/tcp/127.0.0.1/$DEAD_PORT") 2>/dev/null; do DEAD_PORT=$((DEAD_PORT + 7)); done
# The carried spool's backend: down for the first run, up for the next (a
# spool is only ever sent to the backend and tenant it was made for).
CARRY_PORT=$((DEAD_PORT + 3))
while (exec 3<>"/dev/tcp/127.0.0.1/$CARRY_PORT") 2>/dev/null; do CARRY_PORT=$((CARRY_PORT + 7)); done

printf 's3cret\n' > "$TMP/token"
printf 'alice:pw\n' > "$TMP/basic"
chmod 600 "$TMP/token" "$TMP/basic"

# --- two processes, held until every profiler is attached ---------------------
# SCHED_FIFO: each burst runs unbroken even on a busy host, so every sampler
# watching counts the same ticks (under CFS contention two samplers differ
# by several percent on a few hundred samples: time slices).  Still, each
# sampler ticks on its own per-CPU grid, so a burst holds one tick more or
# less for one sampler than for another, by its grid's phase at the burst's
# ends and at a move between CPUs; the cycle is within 0.2 ms of 99 periods
# at 99 Hz, so a phase that adds a tick stays for many bursts (a fresh
# clone: 1520 against 1501 and 1503, 30 ticks a burst).  At 999 Hz a burst
# is 303 ticks: two off in every burst is 0.7%, while a lost burst is 2%.
start_bg variant_exec deb-bin "$WL/duty.lua" 303 697 50 "$GO_FILE"
P1=$BGPID
start_bg variant_exec or-host "$WL/duty.lua" 303 697 50 "$GO_FILE"
P2=$BGPID
chrt -f -p 10 "$P1" && chrt -f -p 10 "$P2" || fail "workloads run SCHED_FIFO" "chrt failed"
sleep 0.3
export LUABPFPROF_NO_JITTER=1	# a fixed period for every sampler (see above)

"$PROF" --continuous -p "$P1,$P2" -F 999 --every 10s -d 60 \
	--push "http://127.0.0.1:$S1_PORT" --label env=ci --label team=lua \
	--spool-dir "$TMP/spool1" --log-file "$TMP/a1.log" &
A1=$!
"$PROF" -p "$P1,$P2" -F 999 -d 64 -f folded --per-process -o "$TMP/one.folded" 2>"$TMP/one.err" &
ONE=$!
"$PROF" -p "$P1,$P2" -F 999 -d 64 --jp F >"$TMP/one.txt" 2>"$TMP/one_txt.err" &
ONE_TXT=$!
wait_for "$TMP/a1.log" "continuous:" 20 || fail "agent starts" "$(cat "$TMP/a1.log")"
sleep 2		# the one-shot run attaches in the same time
touch "$GO_FILE"

# --- the short agents, in parallel with the 60 s run -----------------------------
short() {	# short NAME ARGS...: an agent whose stderr goes to $TMP/NAME.err
	local name=$1; shift
	"$PROF" --continuous -p "$P1,$P2" -F 99 "$@" 2>"$TMP/$name.err" &
	eval "PID_$name=\$!"
}
short push --every 2s -d 9 --push "http://127.0.0.1:$S2_PORT" --push-api push \
	--service svc-push --label env=ci --tenant team-a --auth-token-file "$TMP/token"
short parca --every 2s -d 9 --push "http://127.0.0.1:$S2_PORT/profiles/writeraw" \
	--push-api parca --service svc-parca --basic-auth-file "$TMP/basic"
short count --every 1s -d 8 --out-dir "$TMP/out_count" --retain-count 5
short size --every 1s -d 6 --out-dir "$TMP/out_size" --retain-size 2K
short overflow --every 1s -d 6 --push "http://127.0.0.1:$DEAD_PORT" --spool-size 3K
short carry1 --every 1s -d 4 --push "http://127.0.0.1:$CARRY_PORT" --service carry \
	--spool-dir "$TMP/spool_carry"
short refused --every 1s -d 3 --push "http://127.0.0.1:$S3_PORT"
short term --every 30s --out-dir "$TMP/out_term"
short nosink --every 1s -d 1
short badlabel --every 1s -d 1 --out-dir "$TMP/bad" --label "9x=1"
short badtoken --every 1s -d 1 --push "http://127.0.0.1:$S2_PORT" --auth-token-file "$TMP/none"
short badurl --every 1s -d 1 --push "ftp://127.0.0.1/"

# SIGTERM flushes the interval in progress.
wait_for "$TMP/term.err" "continuous:" 20
sleep 3
kill -TERM "$PID_term"
wait "$PID_term"; rc=$?
check "SIGTERM: exits 0" [ "$rc" -eq 0 ]
"$INGEST" -check "$TMP"/out_term/*.pb.gz > "$TMP/term.check" 2>&1
check "SIGTERM: the partial interval is written, one valid profile per process" \
	[ "$(grep -c '^ok' "$TMP/term.check")" -eq 2 ]
check "SIGTERM: the flushed profiles have samples" \
	[ "$(records "$TMP/term.check" 'if (R["samples"] > 0) n++ } END { print n + 0')" -eq 2 ]

# Bad input: one line naming the problem, nonzero exit.
for name in nosink badlabel badtoken badurl; do
	wait "$(eval echo "\$PID_$name")"; rc=$?
	lines=$(grep -cv '^libbpf' "$TMP/$name.err")
	check "bad input ($name): nonzero exit and one line: $(head -n1 "$TMP/$name.err")" \
		[ "$rc" -ne 0 ] && [ "$lines" -eq 1 ]
done

# The disk spool of a run whose backend was down is sent by the next run.
wait "$PID_carry1"
carried=$(ls "$TMP/spool_carry" | grep -c '\.req$')
check "spool carried over: the first run left its profiles in --spool-dir ($carried)" [ "$carried" -ge 2 ]
check "spool carried over: the first run says they are kept" \
	grep -q "not delivered (kept in the spool)" "$TMP/carry1.err"
start_ingest "$TMP/carry.log" "$CARRY_PORT" || fail "the carried spool's server starts" ""
short carry2 --every 1s -d 2 --push "http://127.0.0.1:$CARRY_PORT" --service carry \
	--spool-dir "$TMP/spool_carry"

# --- the outage: kill the server after two intervals, restart it after a failure ---
wait_for_records() {	# wait_for_records LOG N SECONDS
	local i
	for i in $(seq $(($3 * 10))); do
		[ "$(grep -c '^ok' "$1" 2>/dev/null)" -ge "$2" ] && return 0
		sleep 0.1
	done
	return 1
}
if wait_for_records "$TMP/s1.log" 4 40; then
	kill "$S1"; wait "$S1" 2>/dev/null
	wait_for "$TMP/a1.log" "cannot deliver" 25
	sleep 1
	start_ingest "$TMP/s1.log" "$S1_PORT" || fail "ingest server restarts on port $S1_PORT" ""
	wait_for "$TMP/a1.log" "reachable again" 40
else
	fail "outage" "no two intervals delivered in 40 s: $(tr '\n' '|' < "$TMP/a1.log")"
fi
check "outage: the agent saw the backend down" grep -q "cannot deliver" "$TMP/a1.log"
check "outage: and back" grep -q "reachable again" "$TMP/a1.log"

# --- the short agents' results -------------------------------------------------------
for name in push parca count size overflow refused carry2; do
	wait "$(eval echo "\$PID_$name")"
done
check "push API: the summary shows nothing refused or dropped" grep -q "continuous: .* 0 refused, 0 dropped" "$TMP/push.err"
check "push API: every profile has __name__=process_cpu, service_name, __delta__=false, --label" \
	[ "$(records "$TMP/s2.log" 'if (R["route"] == "push.v1.PusherService/Push") { n++
		if (label("__name__") == "process_cpu" && label("service_name") == "svc-push" &&
		    label("__delta__") == "false" && label("env") == "ci") ok++ } } END { print (n >= 3 && n == ok) ? "yes" : n "/" ok')" = yes ]
check "push API: tenant and bearer token headers" \
	[ "$(records "$TMP/s2.log" 'if (R["route"] ~ /Push/ && R["tenant"] == "team-a" && R["auth"] == "Bearer s3cret") n++ } END { print n + 0')" -ge 3 ]
both=$( (echo "$P1"; echo "$P2") | sort | paste -sd, -)
check "push API: one --service profile holds both processes ($both)" \
	[ "$(awk -F'\t' -v want="pids=$both" '/Push/ { for (i = 1; i <= NF; i++) if ($i == want) n++ } END { print n + 0 }' "$TMP/s2.log")" -ge 3 ]
check "push API: sample IDs are unique" \
	[ "$(records "$TMP/s2.log" 'if (R["route"] ~ /Push/) print R["id"]' | sort | uniq -d | wc -l)" -eq 0 ]
check "parca: writeraw profiles with __name__ and service_name, full URL accepted" \
	[ "$(records "$TMP/s2.log" 'if (R["route"] == "profiles/writeraw" && label("__name__") == "process_cpu" && R["service"] == "svc-parca") n++ } END { print n + 0')" -ge 3 ]
check "parca: basic auth header" \
	[ "$(records "$TMP/s2.log" 'if (R["route"] == "profiles/writeraw" && R["auth"] == "Basic YWxpY2U6cHc=") n++ } END { print n + 0')" -ge 3 ]
check "no request was refused by the ingest servers" \
	bash -c "! grep -q '^reject' '$TMP/s1.log' '$TMP/s2.log'"

n_count=$(ls "$TMP/out_count" | grep -c '\.pb\.gz$')
check "--retain-count 5: 5 files kept ($n_count)" [ "$n_count" -eq 5 ]
"$INGEST" -check "$TMP"/out_count/*.pb.gz > "$TMP/count.check" 2>&1
check "--out-dir files are valid gzip pprof" bash -c "! grep -q '^reject' '$TMP/count.check'"
written=$(sed -n 's/.*continuous: [0-9]* interval(s), \([0-9]*\) profile(s).*/\1/p' "$TMP/count.err")
check "--retain-count: older files were removed ($written written)" [ "${written:-0}" -gt 5 ]
size_total=$(cat "$TMP"/out_size/*.pb.gz | wc -c)
n_size=$(ls "$TMP/out_size" | grep -c '\.pb\.gz$')
check "--retain-size 2K: at most 2048 bytes kept ($size_total in $n_size files)" \
	[ "$size_total" -le 2048 ] && [ "$n_size" -ge 1 ]

check "spool overflow: drops logged" grep -q "spool full" "$TMP/overflow.err"
check "spool overflow: drops counted in the summary" \
	grep -Eq "push: 0 delivered, 0 refused, [1-9][0-9]* dropped" "$TMP/overflow.err"
check "refusing backend: logged and counted, not retried forever" \
	grep -Eq "push: 0 delivered, [1-9][0-9]* refused" "$TMP/refused.err"
check "refusing backend: the server's reason is in the log" grep -q "refusing everything" "$TMP/refused.err"
check "spool carried over: the next run delivers them and empties the spool" \
	[ "$(records "$TMP/carry.log" 'if (R["service"] == "carry") n++ } END { print n + 0')" -ge $((carried + 1)) ] &&
	[ "$(ls "$TMP/spool_carry" | grep -c '\.req$')" -eq 0 ]

# --- the 60 s run ----------------------------------------------------------------------
# back_to_back FILE: each profile starts where the previous one ended (to the
# nanosecond: bash arithmetic, awk's doubles would round), 10 s each but the
# last.  Lines: time duration samples service labels rate period top from until.
back_to_back() {
	local t d from until end= i=0 n len
	n=$(wc -l < "$1")
	while read -r t d _ _ _ _ _ _ from until; do
		i=$((i + 1))
		[ -z "$end" ] || [ "$t" -eq "$end" ] || return 1
		end=$((t + d))
		len=$((until - from))
		[ "$i" -eq "$n" ] || { [ "$len" -ge 9 ] && [ "$len" -le 11 ]; } || return 1
	done < "$1"
}
wait "$A1"; rc=$?
wait "$ONE" "$ONE_TXT"
check "60 s run: exits 0" [ "$rc" -eq 0 ]
check "60 s run: every interval delivered exactly once (12 delivered, none left)" \
	grep -q "push: 12 delivered, 0 refused, 0 dropped (spool full), 0 not delivered" "$TMP/a1.log"
for pid in "$P1" "$P2"; do
	comm=luajit; [ "$pid" = "$P2" ] && comm=lhost-or
	records "$TMP/s1.log" "if (label(\"pid\") == \"$pid\") print R[\"time\"], R[\"duration\"], R[\"samples\"], R[\"service\"], R[\"labels\"], R[\"rate\"], R[\"period\"], R[\"top\"], R[\"from\"], R[\"until\"]" |
		sort -n > "$TMP/a1.$pid"
	n=$(wc -l < "$TMP/a1.$pid")
	check "60 s run, $comm: 6 profiles" [ "$n" -eq 6 ]
	check "60 s run, $comm: no interval twice" [ "$(cut -d' ' -f1 "$TMP/a1.$pid" | uniq | wc -l)" -eq "$n" ]
	check "60 s run, $comm: intervals back to back, 10 s each" back_to_back "$TMP/a1.$pid"
	check "60 s run, $comm: service, labels, sample rate" \
		awk -v c="$comm" -v l="env=ci,pid=$pid,team=lua" \
		'$4 != c || $5 != l || $6 != 999 || $7 != 1001001 { bad++ } END { exit bad > 0 }' "$TMP/a1.$pid"
	check "60 s run, $comm: hot function duty.lua:burn in every profile" \
		awk '$8 !~ /^duty.lua:burn:/ { bad++ } END { exit bad > 0 }' "$TMP/a1.$pid"
	got=$(awk '{ s += $3 } END { print s + 0 }' "$TMP/a1.$pid")
	want=$(awk -F';' -v p="$pid" '$2 == p { n = split($NF, a, " "); s += a[n] } END { print s + 0 }' "$TMP/one.folded")
	margin "60 s run, $comm: total samples against one 60 s run's" "$got" "$want" \
		"$(awk -v w="$want" 'BEGIN { printf "%.1f", w / 100 }')"
	check "60 s run, $comm: total samples $got = one 60 s run's $want within 1%" \
		awk -v g="$got" -v w="$want" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(w > 500 && d <= w / 100) }'
done
# The text view of a one-shot run: its summary counts every sample of both.
got=$(cat "$TMP"/a1.[0-9]* | awk '{ s += $3 } END { print s + 0 }')
want=$(sed -n 's/^luabpfprof: \([0-9]*\) samples in .*/\1/p' "$TMP/one_txt.err")
margin "60 s run: all samples against the text view's" "$got" "$want" \
	"$(awk -v w="$want" 'BEGIN { printf "%.1f", w / 100 }')"
check "60 s run: all samples $got = the text view's $want within 1%" \
	awk -v g="$got" -v w="${want:-0}" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(w > 1000 && d <= w / 100) }'
burn_on_top() {	# burn_on_top PID FILE: the section's first line
	grep -A1 -x "=== PID $1 (.*) ===" "$2" | grep -q '^100%  duty.lua:burn$'
}
for pid in "$P1" "$P2"; do
	check "60 s run: the text view's section for PID $pid is duty.lua:burn too" \
		burn_on_top "$pid" "$TMP/one.txt"
done
cleanup_children
