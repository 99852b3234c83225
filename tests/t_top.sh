#!/bin/bash
# SPDX-License-Identifier: MIT
# luabpfprof top, driven as a user drives it: in a real terminal (a tmux
# pane of a private tmux server), keys sent, the screen captured.  On
# w631.lua (a:b:c = 6:3:1 by construction) the own shares must be within 3
# points of the truth; a sort key must reorder the rows; resizing must
# relayout; q, Ctrl-C, SIGTERM, SIGHUP and the target's exit must leave the
# terminal as it was (the shell's text back, the alternate screen left);
# -- COMMAND passes the command's status on; -e off-cpu puts the waiting
# function first.  At 80x24 and at 160x50.
source "$(dirname "$0")/lib.sh"

if ! command -v tmux >/dev/null; then
	echo "SKIP: top: tmux is not installed (tests/deps/apt.test)"
	exit 0
fi
TM=(tmux -L "lbp-top-$$" -f /dev/null)
cleanup() { "${TM[@]}" kill-server 2>/dev/null; cleanup_children; }
trap cleanup EXIT
# A session that stays: killing the pane's session never ends the server
# (a new session racing a server that exits fails).
"${TM[@]}" new-session -d -s keep -x 80 -y 24 "sleep 600"
TOL=3
MIN_SAMPLES=3000	# ~0.8 points of sampling noise at 60%

# pane_new COLS ROWS: a fresh pane running a plain bash, its prompt "lbp$ ",
# the tool's path in $P.  Typed as "$P" the command line has the same length
# in every checkout: when the pane shrinks under top, tmux reflows the saved
# shell screen on the way back with its cursor where top left it (the last
# row), so a command line that wraps at the new width pushes the top line,
# the marker, into the history (a clone at a path 11 characters longer
# wrapped at 56 columns; the shorter one did not).
pane_new() {
	"${TM[@]}" kill-session -t top 2>/dev/null
	"${TM[@]}" new-session -d -s top -x "$1" -y "$2" \
		"env -i PATH=$PATH TERM=screen HOME=$TMP P=$PROF bash --norc --noprofile"
	"${TM[@]}" send-keys -t top "PS1='lbp\$ '" Enter
	"${TM[@]}" send-keys -t top "clear; echo marker-before-top" Enter
	wait_pane 'marker-before-top' 5
}
screen() { "${TM[@]}" capture-pane -p -t top; }
send() { "${TM[@]}" send-keys -t top "$@"; }
# type_top ARGS: types "$P" top ARGS and the status line the checks wait for.
type_top() { send "\"\$P\" top $*; echo rc=\$?" Enter; }
alt_on() { "${TM[@]}" display -p -t top '#{alternate_on}'; }

# wait_pane REGEX SECS: until the screen shows a line matching REGEX.
wait_pane() {
	local i
	for ((i = 0; i < $2 * 5; i++)); do
		screen | grep -Eq -- "$1" && return 0
		sleep 0.2
	done
	return 1
}

# header_counts [FILE]: the samples and seconds top's header counts ("N
# samples (R/s) in Ss"), on the screen now or in FILE.
header_counts() { { if [ -n "${1:-}" ]; then cat "$1"; else screen; fi; } | sed -nE 's/^([0-9]+) [a-z]+ \([0-9]+\/s\) in ([0-9.]+)s.*/\1 \2/p' | head -1; }

# wait_samples N SECS MAXSECS: until top counted N samples over at least
# SECS seconds, or MAXSECS passed (a loaded machine runs the target less).
wait_samples() {
	local i n s
	for ((i = 0; i < $3 * 5; i++)); do
		read -r n s <<<"$(header_counts)"
		if [ -n "$n" ] && [ "$n" -ge "$1" ] && awk -v s="$s" -v m="$2" 'BEGIN { exit !(s >= m) }'; then
			return 0
		fi
		sleep 0.2
	done
	return 1
}

# own_share SCREEN KEY: the OWN% of the row whose function starts with KEY.
own_share() { awk -v k="$2" '{ for (i = 1; i <= NF; i++) if (index($i, k) == 1) { print $1; exit } }' "$1"; }
# first_row SCREEN: the function of the first row (after the column heads).
first_row() { awk 'f && NF { for (i = 1; i <= NF; i++) if ($i ~ /:[0-9]+$|^\[/) { print $i; exit } } /FUNCTION/ { f = 1 }' "$1"; }

# restored NAME: the shell is back with its earlier text, top's is gone and
# the alternate screen was left; RC is the status the shell printed.
restored() {
	local name=$1 want_rc=$2
	if ! wait_pane '^rc=[0-9]+' 30; then
		fail "$name: exit" "no rc= line: $(screen | tr -s '\n' '|')"
		return
	fi
	screen >"$TMP/after.txt"
	check "$name: exit status $want_rc" grep -qx "rc=$want_rc" "$TMP/after.txt"
	check "$name: alternate screen left" [ "$(alt_on)" = 0 ]
	if grep -q '^marker-before-top' "$TMP/after.txt"; then
		pass "$name: the shell's earlier text is back"
	else
		fail "$name: the shell's earlier text is back" "screen: $(tr -s '\n' '|' <"$TMP/after.txt")"
	fi
	check "$name: top's table is gone" bash -c "! grep -q 'FUNCTION' '$TMP/after.txt'"
}

# --- w631 at two sizes ---------------------------------------------------------
start_bg "$LUAJIT" "$WL/w631.lua" 300
W631=$BGPID
wait_lua "$W631" || fail "w631" "did not start"

top_w631() {
	local cols=$1 rows=$2 tag="${1}x$2" s=$TMP/top-$1.txt k got
	pane_new "$cols" "$rows"
	type_top "-F 999 -p $W631"
	if ! wait_pane 'FUNCTION' 10; then
		fail "$tag: table drawn" "$(screen | tr -s '\n' '|')"
		return
	fi
	check "$tag: alternate screen on" [ "$(alt_on)" = 1 ]
	wait_samples "$MIN_SAMPLES" 5 40 || echo "note: $tag: fewer than $MIN_SAMPLES samples after 40 s"
	screen >"$s"
	check "$tag: header: target, samples, CPU, losses" \
		grep -q "PID $W631 (luajit)" "$s"
	check "$tag: header counts" grep -Eq '^[0-9]+ samples \([0-9]+/s\) in [0-9.]+s +CPU [0-9.]+% +lost [0-9]+ +unknown frames [0-9]+' "$s"
	check "$tag: every line within the width" bash -c "! awk 'length > $cols' '$s' | grep -q ."
	for k in 9:60 10:30 11:10; do
		got=$(own_share "$s" "w631.lua:${k%%:*}")
		within "$tag: own% of w631.lua:${k%%:*} ($(header_counts "$s" | cut -d' ' -f1) samples)" "${got:--1}" "${k##*:}"
	done
	check "$tag: a:b:c compiled (N% 100)" grep -Eq ' 100 +\. +\. +\. +\.  w631\.lua:9 \(a\)' "$s"
	check "$tag: sorted by own first" [ "$(first_row "$s")" = "w631.lua:9" ]
	# t: by total share; the main chunk (on every stack) comes first.
	send t
	wait_pane '\*TOTAL%' 10
	screen >"$s.t"
	check "$tag: key t sorts by total% (main chunk first)" [ "$(first_row "$s.t")" = "w631.lua:0" ]
	check "$tag: the sort column is marked" grep -q '\*TOTAL%' "$s.t"
	# i: the other way round: the smallest total first (c).
	send i
	wait_pane '\^TOTAL%' 10
	screen >"$s.i"
	check "$tag: key i inverts (c first)" [ "$(first_row "$s.i")" = "w631.lua:11" ]
	# /: a filter, typed live.
	send / 1 0 Enter
	wait_pane 'functions +filter: 10' 10
	screen >"$s.f"
	check "$tag: filter /10 keeps b only" bash -c "[ \$(grep -c 'w631.lua:' '$s.f') = 1 ] && grep -q 'w631.lua:10 (b)' '$s.f'"
	send q
	restored "$tag: q" 0
}
top_w631 80 24
top_w631 160 50

# --- Resizing (SIGWINCH) --------------------------------------------------------
pane_new 100 30
type_top "-p $W631"
wait_pane 'w631.lua:9' 10
screen | grep -q 'J%'
check "resize: J% shown at 100 columns" [ $? = 0 ]
"${TM[@]}" resize-window -t top -x 56 -y 16
for ((i = 0; i < 50; i++)); do screen | grep -q 'J%' || break; sleep 0.2; done
screen >"$TMP/narrow.txt"
check "resize: at 56 columns the state mix went, the rows stayed" \
	bash -c "! grep -q 'J%' '$TMP/narrow.txt' && grep -q 'w631.lua:9' '$TMP/narrow.txt'"
check "resize: every line within 56 columns" bash -c "! awk 'length > 56' '$TMP/narrow.txt' | grep -q ."
send q
restored "resize: q" 0

# --- -a: a row per process and function, a filter by pid ------------------------
pane_new 110 30
type_top "-a"
wait_pane "^$W631 +luajit .*w631\.lua:9 \(a\)" 15
check "-a: w631's rows carry its pid and comm" [ $? = 0 ]
send / "$W631" Enter
wait_pane "functions +filter: $W631" 10
screen >"$TMP/all.txt"
# Rows: "PID COMM OWN% TOTAL% ..." (the foot line starts with a number too).
rows=$(awk '/FUNCTION/ { f = 1; next } f && /^[0-9]+ +[^ ]+ +[0-9.]+ +[0-9.]+ / { print $1 }' "$TMP/all.txt")
others=$(grep -v "$W631" <<<"$rows")
grep -q 'w631.lua:10 (b)' "$TMP/all.txt"
check "-a: the filter keeps the rows of PID $W631 ($(wc -w <<<"$rows") rows, others: '$others')" \
	[ $? = 0 -a -n "$rows" -a -z "$others" ]
send q
restored "-a: q" 0

# --- Other exits ----------------------------------------------------------------
pane_new 80 24
type_top "-p $W631"
wait_pane 'w631.lua:9' 10
send C-c
restored "Ctrl-C" 0

# SIGTERM, and SIGHUP (a closed ssh session): top is the pane's shell's child.
for sig in TERM HUP; do
	pane_new 80 24
	type_top "-p $W631"
	wait_pane 'w631.lua:9' 10
	kill -"$sig" "$(pgrep -P "$("${TM[@]}" display -p -t top '#{pane_pid}')" luabpfprof)"
	restored "SIG$sig" 0
done

# The target exits (killed once top shows it): top ends by itself and says so.
pane_new 80 24
send "$LUAJIT $WL/w631.lua 300 & echo \$! >$TMP/target.pid; until grep -qs libluajit /proc/\$!/maps || [[ \$(readlink /proc/\$!/exe) == *luajit* ]]; do sleep 0.1; done; \"\$P\" top -p \$!; echo rc=\$?" Enter
wait_pane 'w631.lua:9' 20
kill "$(cat "$TMP/target.pid")"
restored "target exit" 0
check "target exit: said so" grep -Eq 'PID [0-9]+ \(luajit\) exited' "$TMP/after.txt"

# -- COMMAND: its own status, 7.
pane_new 80 24
type_top "-- $LUAJIT -e 'local t = os.clock() while os.clock() - t < 0.5 do end os.exit(7)'"
restored "-- COMMAND" 7

# --- Off-CPU: where the thread waits -------------------------------------------
start_bg "$LUAJIT" "$WL/top_wait.lua" 120
WAIT=$BGPID
wait_lua "$WAIT"
pane_new 80 24
type_top "-e off-cpu -p $WAIT"
wait_pane 'top_wait.lua' 10
wait_samples 20 3 30
screen >"$TMP/offcpu.txt"
check "off-cpu: the header says so" grep -q ' - off-cpu, every 1s' "$TMP/offcpu.txt"
LONG=top_wait.lua:$(grep -n '^local function wait_long' "$WL/top_wait.lua" | cut -d: -f1)
check "off-cpu: wait_long (100 ms a round, $LONG) first" \
	[ "$(first_row "$TMP/offcpu.txt")" = "$LONG" ]
got=$(own_share "$TMP/offcpu.txt" "$LONG")
check "off-cpu: wait_long's share over 50% (${got}%)" awk -v g="${got:-0}" 'BEGIN { exit !(g > 50) }'
send q
restored "off-cpu: q" 0

# --- Refusals --------------------------------------------------------------------
"$PROF" top -p "$W631" </dev/null >"$TMP/notty.out" 2>&1
rc=$?
check "no terminal: refused (exit 1, one line)" bash -c "[ $rc = 1 ] && [ \$(wc -l <'$TMP/notty.out') = 1 ] && grep -q 'top draws on a terminal' '$TMP/notty.out'"
"$PROF" top -p "$W631" -o x.svg >"$TMP/o.out" 2>&1
rc=$?
check "top -o: refused (exit 2)" bash -c "[ $rc = 2 ] && grep -q 'without -o/--output' '$TMP/o.out'"
"$PROF" -p "$W631" --delay 2 >"$TMP/d.out" 2>&1
rc=$?
check "--delay without top: refused (exit 2)" bash -c "[ $rc = 2 ] && grep -q 'delay is for luabpfprof top' '$TMP/d.out'"
