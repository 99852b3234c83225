#!/bin/bash
# SPDX-License-Identifier: MIT
# A hostile target against -a's VM scan (issue 42, item 3): a LuaJIT process
# run as nobody reserves 64 regions of 1 GiB, readable and writable, never
# touched (tests/workloads/reserve.lua: 2.6 MB of RSS).  The scan used to
# read all 64 GiB as pages of zeros, on the sampling thread, ignoring the
# stop flag: -p took 84 s for a 1 s run here, and -a started in 62 s,
# obeyed SIGTERM in 45 s and wrote 7 intervals in 180 s at --every 1s.  Now
# a scan reads only pages the process touched (smaps and pagemap), within
# 2 GiB and 2 s, and stops at its next chunk on a signal.  The agent runs
# twice, without and with the hostile process, next to a normal LuaJIT
# process (the control):
#   - it starts within 10 s of the run without it;
#   - SIGTERM ends it within 5 s;
#   - the control's intervals keep coming (at most 2 fewer than without);
#   - the hostile process is found and profiled all the same.
# -a sees every LuaJIT process on the host (other people's tests too): the
# bounds are relative to the run without the hostile process, minutes apart.
source "$(dirname "$0")/lib.sh"
trap 'cleanup_children; rm -rf "$TMP"' EXIT
chmod 755 "$TMP"

NOBODY=(setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all)
RUN_S=8

start_bg "$LUAJIT" "$WL/w631.lua" 600
C=$BGPID
wait_lua "$C"

# agent NAME: -a for RUN_S seconds after its start line, then SIGTERM; sets
# START_MS, TERM_MS, RC and N (the control's interval files).
agent() {
	local name=$1 t0 t1 t2
	mkdir -p "$TMP/$name"
	t0=$(date +%s%N)
	"$PROF" -a --continuous --every 1s -F 99 -v --out-dir "$TMP/$name" 2>"$TMP/$name.err" &
	local a=$!
	for _ in $(seq 1200); do grep -q 'continuous: all' "$TMP/$name.err" && break; sleep 0.05; done
	t1=$(date +%s%N)
	sleep "$RUN_S"
	t2=$(date +%s%N)
	kill -TERM "$a"
	for _ in $(seq 600); do kill -0 "$a" 2>/dev/null || break; sleep 0.05; done
	TERM_MS=$((($(date +%s%N) - t2) / 1000000))
	kill -KILL "$a" 2>/dev/null	# a run that ignored SIGTERM fails, not hangs
	wait "$a"
	RC=$?
	START_MS=$(((t1 - t0) / 1000000))
	N=$(ls "$TMP/$name" | grep -c -- "-$C\.pb\.gz$")
}

agent base
B_START=$START_MS B_N=$N B_TERM=$TERM_MS
check "baseline: -a runs and exits 0 (start $START_MS ms, SIGTERM $TERM_MS ms, $N intervals of the control)" \
	[ "$RC" -eq 0 ]

"${NOBODY[@]}" "$LUAJIT" "$WL/reserve.lua" 64 1 >"$TMP/reserve.out" &
R=$!
CHILDREN+=("$R")
for _ in $(seq 100); do grep -q reserved "$TMP/reserve.out" && break; sleep 0.1; done
check "the hostile process reserved 64 GiB ($(cat "$TMP/reserve.out"), RSS $(awk '/VmRSS/ { print $2 " kB" }' "/proc/$R/status"))" \
	grep -qx 'reserved 64' "$TMP/reserve.out"

agent hostile
check "64 x 1 GiB untouched: -a starts within 10 s of the run without it ($START_MS ms, was $B_START ms)" \
	[ "$START_MS" -le $((B_START + 10000)) ]
# 5 s; on a host so loaded that the run without it takes longer to flush
# its profiles, 1 s more than that run.
lim=$((B_TERM + 1000 > 5000 ? B_TERM + 1000 : 5000))
check "64 x 1 GiB untouched: SIGTERM ends the agent within $((lim / 1000)) s ($TERM_MS ms, exit $RC; $B_TERM ms without it)" \
	bash -c "[ $TERM_MS -le $lim ] && [ $RC -eq 0 ]"
# Intervals of 1 s for RUN_S s: about RUN_S files either way; a loaded host
# delays both runs alike, so the bound is the baseline's count less 2.
check "64 x 1 GiB untouched: the control's intervals on time ($N in ${RUN_S} s, $B_N without it)" \
	bash -c "[ $N -ge $((B_N - 2)) ] && [ $N -ge 1 ]"
check "64 x 1 GiB untouched: the hostile process itself is profiled" \
	grep -q "profiling PID $R " "$TMP/hostile.err"
# A scan cut by its time budget on a loaded host is fine; one that read
# more than the few MB the process touched is not (each read 1 GiB before).
most=$(sed -n "s/.*PID $R: VM scan stopped after \([0-9]*\) MiB read.*/\1/p" "$TMP/hostile.err" |
	sort -n | tail -1)
check "64 x 1 GiB untouched: its scans read only what it touched (at most ${most:-0} MiB in a cut scan: $(grep "PID $R: VM scan stopped" "$TMP/hostile.err" | head -1 | cut -c1-160))" \
	[ "${most:-0}" -le 16 ]
