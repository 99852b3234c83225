#!/bin/bash
# SPDX-License-Identifier: MIT
# How a run starts and ends (user/session/, user/cli/main.c): SIGHUP ends
# a one-shot run with its report, -- COMMAND is watched, ended, followed
# and its status passed on, and long runs without a terminal show
# progress.  Real LuaJIT processes, real BPF.
source "$(dirname "$0")/lib.sh"

HZ=199

# --- progress every few seconds without a terminal, once past 10 s ----------
# (in the background: the rest of the file runs meanwhile)
start_bg "$LUAJIT" "$WL/w631.lua" 60
long_pid=$BGPID
wait_lua "$long_pid"
"$PROF" -p "$long_pid" -F 49 -d 11.5 >"$TMP/long.txt" 2>"$TMP/long.err" &
long_prof=$!

# --- SIGHUP (a closed SSH session) ends a one-shot run like SIGINT -------------
start_bg "$LUAJIT" "$WL/w631.lua" 60
pid=$BGPID
wait_lua "$pid"
"$PROF" -v -p "$pid" -F "$HZ" --jp F -o "$TMP/hup.txt" 2>"$TMP/hup.err" &
prof=$!
# BPF loading takes seconds on a loaded host: signal once sampling runs.
for _ in $(seq 300); do grep -q 'sampling at' "$TMP/hup.err" && break; sleep 0.1; done
sleep 2
kill -HUP "$prof"
wait "$prof"
rc=$?
check "SIGHUP: exit 0" [ "$rc" = 0 ]
# (the share is t_core's business: here BPF loading on a loaded host may
# leave only a few samples before the signal)
check "SIGHUP: the report is written" grep -q '%  w631\.lua:a$' "$TMP/hup.txt"
check "SIGHUP: the summary line" grep -q '^luabpfprof: [0-9]* samples in' "$TMP/hup.err"
check "SIGHUP: no temporary file left" \
	bash -c "! ls -a '$TMP' | grep -q '^\.luabpfprof\.'"
check "a short run shows no progress line" bash -c "! grep -q '^\[' '$TMP/hup.err'"
kill "$pid" 2>/dev/null

# --- -- COMMAND: its exit status is passed on ---------------------------------
"$PROF" -F "$HZ" -- sh -c 'exit 3' >/dev/null 2>"$TMP/exit3.err"
rc=$?
check "-- COMMAND: its exit status is passed on (3)" [ "$rc" = 3 ]
"$PROF" -F "$HZ" -- sh -c 'kill -KILL $$' >/dev/null 2>"$TMP/sig.err"
rc=$?
check "-- COMMAND: killed by a signal: 128 + the signal" [ "$rc" = 137 ]

# --- -- COMMAND: labelled by the program it runs, exec'd descendants followed --
"$PROF" -F "$HZ" --per-thread -- "$LUAJIT" "$WL/w631.lua" 1.5 >"$TMP/label.txt" 2>"$TMP/label.err"
check "-- COMMAND: labelled by its program" \
	bash -c "grep -q '^=== PID [0-9]* TID [0-9]* (luajit) ===' '$TMP/label.txt' && ! grep -q '(luabpfprof)' '$TMP/label.txt'"
"$PROF" -F "$HZ" --jp F -- sh -c "'$LUAJIT' '$WL/w631.lua' 2; true" >"$TMP/desc.txt" 2>"$TMP/desc.err"
check_share "-- COMMAND: a LuaJIT process it starts is followed" "$TMP/desc.txt" w631.lua:a 60 10

# --- -- COMMAND: a child that ignores SIGTERM is killed after a grace period ---
start=$(date +%s)
timeout 30 "$PROF" -F "$HZ" -d 1 -- sh -c 'trap "" TERM; exec sleep 29' >/dev/null 2>"$TMP/term.err"
rc=$?
took=$(( $(date +%s) - start ))
check "-- COMMAND ignoring SIGTERM: luabpfprof ends after -d and a grace period (${took}s)" \
	bash -c "[ $rc != 124 ] && [ $took -le 10 ]"

# --- -- COMMAND: a SIGKILLed luabpfprof does not orphan its child --------------
"$PROF" -F "$HZ" -- sleep 28 >/dev/null 2>&1 &
prof=$!
child=
for _ in $(seq 50); do
	child=$(cat /proc/"$prof"/task/*/children 2>/dev/null | awk '{print $1}')
	[ -n "$child" ] && [ "$(cat /proc/"$child"/comm 2>/dev/null)" = sleep ] && break
	sleep 0.1
done
kill -KILL "$prof"
wait "$prof" 2>/dev/null
gone=no
# Orphaned by the kill, the dead child waits for init to reap it: a zombie
# counts as dead (kill -0 would count it alive; CI saw that once).
for _ in $(seq 50); do
	is_running "$child" || { gone=yes; break; }
	sleep 0.1
done
check "-- COMMAND: the child dies with a SIGKILLed luabpfprof" \
	bash -c "[ -n '$child' ] && [ $gone = yes ]"
[ $gone = no ] && [ -n "$child" ] && kill -KILL "$child" 2>/dev/null

wait "$long_prof"
check "progress: a line every few seconds on a non-terminal stderr, after 10 s" \
	bash -c "[ \$(grep -c '^\[ *[0-9.]*s\] [0-9]* samples' '$TMP/long.err') -ge 1 ]"
check "progress: one line each, no carriage returns" bash -c "! grep -q \$'\r' '$TMP/long.err'"
kill "$long_pid" 2>/dev/null
cleanup_children
rm -rf "$TMP"
