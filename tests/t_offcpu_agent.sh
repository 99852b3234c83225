#!/bin/bash
# SPDX-License-Identifier: MIT
# Continuous mode with -e cpu,off-cpu: one run ships each interval's CPU
# and off-CPU profiles as two profile types (Pyroscope's SVC.cpu and
# SVC.off_cpu, __name__ process_cpu and off_cpu for the Push API and
# Parca), and tests/ingest checks that each body's sample types agree
# with the type it is filed under.  The target is offcpu.lua (see
# t_offcpu.sh), launched under the agent so that its whole life is
# profiled, against its in-process truth:
#   - the CPU profiles count samples, and burn() holds nearly all;
#   - the off-CPU profiles split the blocking parts (wait_pipe, nap,
#     shell) as the truth does, within TOL points;
#   - the two types together account for the target's life: between its
#     in-process clock and the intervals' span (nothing lost or counted
#     twice by the split), within SUM_TOL points.
# And -e cpu,off-cpu without --continuous is one line and exit 2.
set -uo pipefail
source "$(dirname "$0")/lib.sh"

SECS=3
TOL=3
SUM_TOL=5
HZ=997
declare -A LJ=([deb]="$TOP/.deps/luajit-deb" [or]="$TOP/.deps/luajit2")

if ! build_ingest >"$TMP/build.log" 2>&1; then
	fail "ingest server builds" "$(tr '\n' '|' < "$TMP/build.log")"
	exit 0
fi

# fields LOG PID TYPE KEY: KEY's value in each ok record of PID and TYPE.
fields() {
	awk -F'\t' -v pid="$2" -v type="$3" -v key="$4" '$1 == "ok" {
		delete R
		for (i = 2; i <= NF; i++) { k = index($i, "="); R[substr($i, 1, k - 1)] = substr($i, k + 1) }
		if (R["type"] == type && ("," R["labels"] ",") ~ ("pid=" pid ",")) print R[key] }' "$1"
}

# hot_sum LOG PID TYPE FUNC: FUNC's time on the stack, over PID's records.
hot_sum() {
	fields "$1" "$2" "$3" hot | tr ';' '\n' |
		awk -v f="$4" '{ n = split($0, a, ":"); name = substr($0, 1, length($0) - length(a[n]) - 1)
			if (name == f) s += a[n] } END { printf "%.0f\n", s }'
}

source "$TOP/tests/truth.sh"	# truth FILE PART, pct A B

# run NAME VARIANT API: offcpu.lua under the agent pushing to a fresh
# ingest server with API; its records in $TMP/NAME.log.
run() {
	local name=$1 v=$2 api=$3 fifo=$TMP/$1.fifo tree=${LJ[$2]} url
	start_ingest "$TMP/$name.log" 0 || { fail "$name: ingest server starts" ""; return 1; }
	PORT=$SRV_PORT
	url=http://127.0.0.1:$PORT
	[ "$api" = parca ] && url=$url/profiles/writeraw
	mkfifo "$fifo.req" "$fifo.resp"
	start_bg env LUA_PATH="$tree/usr/share/luajit-2.1.0-beta3/?.lua;;" "$tree/usr/bin/luajit" \
		"$WL/offcpu_feed.lua" "$fifo"
	timeout 60 "$PROF" --continuous -e cpu,off-cpu --every 1 -F "$HZ" \
		--push "$url" --push-api "$api" -- env \
		LUA_PATH="$tree/usr/share/luajit-2.1.0-beta3/?.lua;;" "$tree/usr/bin/luajit" -joff \
		"$WL/offcpu.lua" "$SECS" "$fifo" >"$TMP/$name.out" 2>"$TMP/$name.err"
	local rc=$?
	cleanup_children
	check "$name: agent exits 0" [ "$rc" -eq 0 ]
	check "$name: every profile delivered" grep -Eq 'push: [1-9][0-9]* delivered, 0 refused' "$TMP/$name.err"
	check "$name: no request refused" bash -c "! grep -q '^reject' '$TMP/$name.log'"
	# The workload's pid: the one whose CPU profiles hold burn().
	MAIN=$(awk -F'\t' '$1 == "ok" && /offcpu\.lua:burn/ && /type=cpu/ {
		n = split($0, a, "pid="); split(a[2], b, "[,\t]"); print b[1]; exit }' "$TMP/$name.log")
	[ -n "$MAIN" ] && [ -n "$(truth "$TMP/$name.out" total)" ] ||
		{ fail "$name: records and truth" "$(tr '\n' '|' < "$TMP/$name.err")"; return 1; }
}

no_waiting_in_cpu() { ! fields "$1" "$MAIN" cpu hot | grep -q 'waiting_for_a_CPU'; }

check_run() {
	local name=$1 log=$TMP/$1.log o=$TMP/$1.out ncpu noff samples burn part blocked=0 got_sum=0
	local period cpu_ns off_ns span both clock
	ncpu=$(fields "$log" "$MAIN" cpu samples | wc -l)
	noff=$(fields "$log" "$MAIN" off_cpu samples | wc -l)
	check "$name: CPU and off-CPU profiles each interval ($ncpu and $noff)" \
		[ "$ncpu" -ge 3 ] && [ "$noff" -ge 3 ] && [ "$ncpu" -le 5 ] && [ "$noff" -le 5 ]
	# CPU: values are samples, burn() holds nearly all of them.
	samples=$(fields "$log" "$MAIN" cpu samples | awk '{ s += $1 } END { printf "%.0f\n", s }')
	burn=$(fields "$log" "$MAIN" cpu top | tr ';' '\n' | awk -F: '$1 ":" $2 == "offcpu.lua:burn" { s += $3 } END { print s + 0 }')
	check "$name: CPU profiles: offcpu.lua:burn is the hot leaf ($burn of $samples samples)" \
		awk -v b="$burn" -v s="$samples" 'BEGIN { exit !(s > 100 && b >= 0.9 * s) }'
	check "$name: CPU profiles: no off-CPU time in them" no_waiting_in_cpu "$log"
	# Off-CPU: the blocking parts in the truth's proportions.
	for part in wait_pipe nap shell; do
		blocked=$(awk -v a="$blocked" -v b="$(truth "$o" $part)" 'BEGIN { print a + b }')
		got_sum=$((got_sum + $(hot_sum "$log" "$MAIN" off_cpu "offcpu.lua:$part")))
	done
	for part in wait_pipe nap shell; do
		within "$name: off-CPU share of $part" \
			"$(pct "$(hot_sum "$log" "$MAIN" off_cpu "offcpu.lua:$part")" "$got_sum")" \
			"$(pct "$(truth "$o" $part)" "$blocked")"
	done
	# Both types together: the target, launched under the agent, was on
	# the CPU or off it from its start to its exit, so its CPU and off-CPU
	# time lies between its in-process clock (which starts after its
	# start-up) and the span of the intervals (the last ends at the tick
	# after its exit), within SUM_TOL points: a one-shot wall profile of
	# this workload also comes out 0.5 to 2% under the clock (the cause is
	# not known; the split is checked exactly in ship/test_agent_parts.c),
	# and what this guards against, a half lost or counted in the wrong
	# unit, is tens of points.  Interval by interval it cannot
	# be checked: a block is counted when it ends, so one open at a cut (an
	# os.execute can take 0.2 s on a loaded machine) moves to the next.
	period=$(fields "$log" "$MAIN" cpu period | head -1)
	cpu_ns=$(fields "$log" "$MAIN" cpu cpu | awk '{ s += $1 } END { printf "%.0f\n", s }')
	off_ns=$(fields "$log" "$MAIN" off_cpu cpu | awk '{ s += $1 } END { printf "%.0f\n", s }')
	span=$(paste <(fields "$log" "$MAIN" off_cpu time) <(fields "$log" "$MAIN" off_cpu duration) |
		sort -u | awk '{ s += $2 } END { printf "%.0f\n", s }')
	check "$name: CPU period is 1/$HZ s" [ "$period" = $((1000000000 / HZ)) ]
	both=$((cpu_ns + off_ns))
	clock=$(awk -v t="$(truth "$o" total)" 'BEGIN { printf "%.0f\n", t * 1e9 }')
	check "$name: CPU + off-CPU time ($both ns) between the target's clock ($clock) and the intervals' span ($span), ±$SUM_TOL%" \
		awk -v b="$both" -v c="$clock" -v s="$span" -v t="$SUM_TOL" \
		'BEGIN { exit !(b >= c * (1 - t / 100) && b <= s * (1 + t / 100)) }'
}

for v in deb or; do
	[ -x "${LJ[$v]}/usr/bin/luajit" ] || { echo "SKIP: $v LuaJIT not set up"; continue; }
	api=ingest; [ $v = or ] && api=parca
	run "both-$v-$api" $v $api && check_run "both-$v-$api"
done
run "both-deb-push" deb push && check_run "both-deb-push"

"$PROF" -e cpu,off-cpu -d 1 -p $$ >"$TMP/one.out" 2>"$TMP/one.err"
rc=$?
check "one-shot -e cpu,off-cpu: exit 2" [ "$rc" -eq 2 ]
check "one-shot -e cpu,off-cpu: one line naming --continuous" \
	awk 'END { exit !(NR == 1 && /needs --continuous/ && /-e wall/) }' "$TMP/one.err"

# -e wall alone: one profile type, wall, in files named -wall.
mkfifo "$TMP/w.fifo.req" "$TMP/w.fifo.resp"
start_bg "${LJ[deb]}/usr/bin/luajit" "$WL/offcpu_feed.lua" "$TMP/w.fifo"
timeout 30 "$PROF" --continuous -e wall --every 1 -F "$HZ" --out-dir "$TMP/wall" -- \
	"${LJ[deb]}/usr/bin/luajit" -joff "$WL/offcpu.lua" 2 "$TMP/w.fifo" >/dev/null 2>"$TMP/w.err"
cleanup_children
"$INGEST" -check "$TMP"/wall/*.pb.gz >"$TMP/w.check" 2>&1
check "-e wall --continuous: every file is a valid wall profile" \
	awk -F'\t' '{ n++ } $1 != "ok" || $4 != "type=wall" || $3 !~ /-wall\.pb\.gz$/ { bad++ }
		END { exit !(n >= 2 && !bad) }' "$TMP/w.check"
check "-e wall --continuous: burn and nap in the luajit profiles" \
	awk -F'\t' '$3 ~ /luajit-[0-9]+-wall/ && /offcpu\.lua:burn:/ && /offcpu\.lua:nap:/ { n++ }
		END { exit !(n >= 2) }' "$TMP/w.check"
