#!/bin/bash
# SPDX-License-Identifier: MIT
# Timelines (-f chrome, -f speedscope-evented): two workloads whose every
# Nth frame calls spike(), each timing its spikes in-process on
# CLOCK_MONOTONIC (the clock of the files' origin), profiled together into
# both formats.  tests/node/check_timeline.js compares the slices with the
# timed spikes, thread by thread, and opens both files in speedscope in
# headless chromium.
source "$(dirname "$0")/lib.sh"

HZ=199
NODE_DIR=$TOP/tests/node
export SPIKE_MS_spikeA=120 SPIKE_MS_spikeB=80

# NAME OUT N FRAMES FRAME_MS SPIKE_MS WAIT_MS: the wait lets both profilers
# attach before the first frame.
start_bg "$LUAJIT" "$WL/spike.lua" spikeA "$TMP/a.txt" 5 30 10 $SPIKE_MS_spikeA 3000
a=$BGPID
start_bg "$LUAJIT" "$WL/spike.lua" spikeB "$TMP/b.txt" 4 28 10 $SPIKE_MS_spikeB 3000
b=$BGPID
wait_lua "$a" && wait_lua "$b"
"$PROF" -p "$a" -p "$b" -F $HZ -d 30 -o "$TMP/t.trace.json" 2>"$TMP/chrome.err" &
p1=$!
"$PROF" -p "$a" -p "$b" -F $HZ -d 30 -f speedscope-evented -o "$TMP/t.evented.speedscope.json" \
	2>"$TMP/evented.err" &
p2=$!
wait "$p1"; rc1=$?
wait "$p2"; rc2=$?
wait "$a" "$b"
check "chrome: the run succeeds ($rc1)" [ "$rc1" = 0 ]
check "evented: the run succeeds ($rc2)" [ "$rc2" = 0 ]
check "the timeline's size and losses are shown" \
	grep -Eq '^luabpfprof: timeline: [1-9][0-9]* events of 2 threads \([0-9.]+ MiB\), 0 dropped past the bound of 1048576$' "$TMP/chrome.err"
check "both workloads finished" grep -q done "$TMP/a.txt" "$TMP/b.txt"

(cd "$NODE_DIR" && node check_timeline.js "$TMP" "$HZ" spikeA="$TMP/a.txt" spikeB="$TMP/b.txt")

# Bad input: one line, nonzero exit.
"$PROF" -p $$ -f chrome --continuous --out-dir "$TMP/d" >/dev/null 2>"$TMP/bad.err"
rc=$?
check "-f chrome refused with --continuous, in one line ($rc)" \
	bash -c "[ $rc != 0 ] && [ \$(wc -l <'$TMP/bad.err') = 1 ] && grep -q 'cannot go with --continuous' '$TMP/bad.err'"
