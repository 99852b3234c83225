#!/bin/bash
# SPDX-License-Identifier: MIT
# Code loaded anew and collected right after it ran (issue 12): test
# runners loading spec files every round, template engines, load()-heavy
# programs.  tests/workloads/fresh.lua load()s a new chunk every round,
# runs it for 1.5-4.5 ms, drops it and calls collectgarbage(), so its
# prototypes die (and the next round's take their memory) long before a
# drain; 60% of the time is in the fresh chunk's fresh_loop (loaded.lua:2),
# 40% in the stable function.  The walker announces each new prototype with
# a copy of it (bpf/protos.bpf.h); with the JIT off and on, one run each:
#   - shares: loaded.lua:fresh_loop 60%, stable 40% (--jp F), loaded.lua:2
#     60% (--jp l) with the JIT off; fresh_loop 60% with the JIT on (which
#     compiles a trace for each round's chunk);
#   - names: fresh_loop under fresh_run in the folded stacks, both named
#     from dead prototypes' bytecode (fresh_run's upvalue for fresh_loop);
#   - lines: no loaded.lua key on a line the chunk does not have (0-8:
#     line 0 is the chunk's own entry, its FUNCV, which runs every round);
#   - unresolved frames (the summary's "unknown frames") at most 1% of
#     the samples.
source "$(dirname "$0")/lib.sh"
trap 'cleanup_children; rm -rf "$TMP"' EXIT

SECS=4
HZ=999

# summary_count FILE LABEL: the count before LABEL in a summary line.
summary_count() {
	grep -h 'samples in' "$1" | grep -oE "[0-9]+ $2" | head -1 | cut -d' ' -f1
}

# folded_share FILE PATTERN: share (percent, integer) of the folded
# stacks that contain PATTERN (an ERE).
folded_share() {
	awk -v p="$2" '{ c = $NF; total += c; if ($0 ~ p) hit += c }
		END { printf "%d", total ? 100 * hit / total + 0.5 : 0 }' "$1"
}

MIN_SAMPLES=800		# per run; fewer (a loaded host): measured again, twice as long

# run_mode MODE LUAJIT-ARGS...: profiles fresh.lua in three formats at once.
run_mode() {
	local mode=$1 secs w n
	shift
	start_bg "$LUAJIT" "$@" "$WL/fresh.lua"
	local pid=$BGPID
	sleep 1
	for secs in $SECS $((SECS * 2)); do
		w=()
		"$PROF" -p "$pid" -d "$secs" -F "$HZ" --jp F >"$TMP/$mode.F" 2>"$TMP/$mode.F.err" & w+=($!)
		"$PROF" -p "$pid" -d "$secs" -F "$HZ" --jp lm0 >"$TMP/$mode.l" 2>"$TMP/$mode.l.err" & w+=($!)
		"$PROF" -p "$pid" -d "$secs" -F "$HZ" -f folded >"$TMP/$mode.folded" 2>"$TMP/$mode.folded.err" & w+=($!)
		wait "${w[@]}"
		n=$(cat "$TMP/$mode".*.err | grep -h 'samples in' | awk '{ print $2 }' | sort -n | head -1)
		[ "${n:-0}" -ge "$MIN_SAMPLES" ] && break
	done
	kill "$pid" 2>/dev/null
}

check_mode() {
	local mode=$1 f samples unknown bad got
	for f in F l folded; do
		samples=$(summary_count "$TMP/$mode.$f.err" samples)
		unknown=$(summary_count "$TMP/$mode.$f.err" "unknown frames")
		margin_rate "fresh $mode $f: unknown frames (% of samples, at most)" "$unknown" "$samples" 1
		if [ -n "$samples" ] && [ "$samples" -ge "$MIN_SAMPLES" ] && [ -n "$unknown" ] &&
		   [ $((unknown * 100)) -le "$samples" ]; then
			pass "fresh $mode $f: $unknown unknown frames of $samples samples (<= 1%)"
		else
			fail "fresh $mode $f: unknown frames" "'$unknown' of '$samples' samples: $(tail -1 "$TMP/$mode.$f.err")"
		fi
	done
	got=$(folded_share "$TMP/$mode.folded" ';loaded\.lua:fresh_run;loaded\.lua:fresh_loop( |;)')
	if [ "$got" -ge 50 ]; then
		pass "fresh $mode: fresh_loop under fresh_run, named from dead prototypes (${got}%)"
	else
		fail "fresh $mode: fresh_run;fresh_loop" "${got}%: $(sort -t' ' -k2 -rn "$TMP/$mode.folded" | head -5 | tr '\n' '|')"
	fi
	bad=$(sed -n 's/^ *[0-9]*%  //p' "$TMP/$mode.l" | grep -E '^loaded\.lua:' |
		grep -vE '^loaded\.lua:[0-8]$' | head -3 | tr '\n' ' ')
	if [ -z "$bad" ] && grep -qE '%  loaded\.lua:2$' "$TMP/$mode.l"; then
		pass "fresh $mode: loaded.lua keys on its own lines only"
	else
		fail "fresh $mode: loaded.lua lines" "bad: '${bad}'; $(head -5 "$TMP/$mode.l" | tr '\n' '|')"
	fi
}

run_mode off -joff
check_mode off
check_share "fresh off: the fresh chunk's function" "$TMP/off.F" loaded.lua:fresh_loop 60 6
check_share "fresh off: the stable function" "$TMP/off.F" fresh.lua:stable 40 6
check_share "fresh off: the fresh chunk's loop line" "$TMP/off.l" loaded.lua:2 60 6

run_mode on
check_mode on
check_share "fresh on: the fresh chunk's function" "$TMP/on.F" loaded.lua:fresh_loop 60 8
