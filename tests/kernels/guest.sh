#!/bin/bash
# SPDX-License-Identifier: MIT
# The kernel matrix's checks, run inside each guest kernel (boot.sh boots
# it with this machine's root shared read-only; the checkout is at $TOP).
# One line per check, "PASS: kernel K: ..." or "FAIL: kernel K: ...":
#   - --check-kernel: every mode's programs load, each processes under
#     half the verifier's million instructions, and its deepest call
#     chain's stack leaves at least STACK_ROOM of the 512 bytes;
#   - 6:3:1 with the JIT on, read back from a pprof file; with -joff, read
#     back from an SVG flame graph (w631.lua: exact by construction);
#   - off-CPU and wall shares against offcpu.lua's in-process clocks;
#   - --native: cbrt's samples under main;...;spin_cbrt;cbrt;
#   - --jit: fnew's closure aborts with NYI: bytecode;
#   - -e alloc: big's share of the bytes against its in-process count;
#   - -a --continuous's interval files, speedscope read back, --heap.
# Durations and rates are for emulation (TCG), which runs the guest some
# ten times slower than this machine.
set -u
source "$TOP/tests/lib.sh"
source "$TOP/tests/truth.sh"

K=$(uname -r)
TOL=3
HZ=${HZ:-999}
# A wall profile weighs each CPU sample by its period, so a tick the
# emulated kernel fires late or skips is CPU time lost: HZ_WALL lowers the
# rate of those runs if that shows (HZ held on every kernel of the matrix).
HZ_WALL=${HZ_WALL:-$HZ}
SECS=${SECS:-4}
STACK_ROOM=32
DEB=$TOP/.deps/luajit-deb
LJ=$DEB/usr/bin/luajit
LJENV=(env "LUA_PATH=$DEB/usr/share/luajit-2.1.0-beta3/?.lua;;")

exec 9>&1	# the checks' stdout, for reports from inside redirected commands
# section NAME: the time the previous section took, then NAME starts.
SECTION= SECTION_T=$SECONDS
section() {
	[ -n "$SECTION" ] && echo "time: $SECTION $((SECONDS - SECTION_T)) s"
	SECTION=$1 SECTION_T=$SECONDS
}
kpass() { : >"$TMP/progress"; pass "kernel $K: $1"; }
kfail() { : >"$TMP/progress"; fail "kernel $K: $1" "$2"; }

# A guest that stops making progress, so that even guard's ps would hang
# (seen on 5.10: nothing printed until the host's timeout): after 240 s
# with no check passed or failed, every task's state and wait channel,
# read with shell builtins only (no exec from the shared root, no
# /proc/PID/cmdline, which waits for a stuck task's memory lock), then
# the kernel's own list of blocked tasks with their stacks (sysrq w) on
# the console, which t_kernels shows; then the guest powers off.
watchdog() {
	local idle=0 p comm wchan state
	exec 3<>"$TMP/watchdog.fifo"
	while :; do
		read -r -t 30 -u 3 _
		if [ "$TMP/progress" -nt "$TMP/watchdog.mark" ]; then
			idle=0
			: >"$TMP/watchdog.mark"
		elif ((++idle == 8)); then
			for p in /proc/[0-9]*; do
				read -r comm <"$p/comm" 2>/dev/null || continue
				read -r wchan <"$p/wchan" 2>/dev/null
				read -r _ _ state _ <"$p/stat" 2>/dev/null
				[ "$state" = S ] && [ "$comm" != bash ] || echo "WATCHDOG: ${p#/proc/} $comm $state ${wchan:-}" >&9
			done
			echo 1 >/proc/sys/kernel/sysrq
			echo w >/proc/sysrq-trigger
			read -r -t 10 -u 3 _
			echo o >/proc/sysrq-trigger	# power off: nothing more will run
		fi
	done
}
: >"$TMP/progress"
: >"$TMP/watchdog.mark"
mkfifo "$TMP/watchdog.fifo"
watchdog &
# guard SECONDS NAME COMMAND...: COMMAND in the foreground, at most SECONDS.
# A run still going then is a failure that says what every process is
# waiting in (a hang seen once on 5.10, with nothing to read after the
# guest's timeout); it gets SIGINT (a profiler flushes what it has), then
# SIGKILL, and the guest's other checks still run.
guard() {
	local secs=$1 name=$2 pid i p; shift 2
	"$@" &
	pid=$!
	for ((i = 0; i < secs * 5; i++)); do
		kill -0 "$pid" 2>/dev/null || { wait "$pid"; return; }
		sleep 0.2
	done
	kfail "$name: still running after $secs s" "$(ps -eo pid,ppid,stat,wchan:28,args | grep -v ' \[' | tr -s ' ' | tr '\n' '|')$(for p in $(pgrep -f "$TOP"); do echo "$p: $(head -n 4 /proc/$p/stack 2>/dev/null | tr '\n' ' ')|"; done)" >&9
	kill -INT "$pid" 2>/dev/null
	for ((i = 0; i < 25; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
	kill -KILL "$pid" 2>/dev/null
	wait "$pid"
	return 124
}
kwithin() {	# kwithin NAME GOT WANT: GOT within TOL points of WANT
	if awk -v g="$2" -v w="$3" -v t="$TOL" 'BEGIN { d = g - w; exit !(g >= 0 && d <= t && -d <= t) }'
	then kpass "$1 (got $2%, truth $3%)"
	else kfail "$1" "got $2% want $3% +-$TOL"; fi
}

# --- The verifier's statistics ----------------------------------------------
section verifier
guard 300 "--check-kernel" "$PROF" --check-kernel >"$TMP/check.txt" 2>&1
sed 's/^/verifier: /' "$TMP/check.txt"
while read -r mode prog result _; do
	# A 7.x verifier gives its largest frame only ("stack n/a (largest
	# frame N)"): that frame is what can be checked there.
	read -r insns stack what < <(awk -v p="$prog" '$2 == p { for (i = 1; i < NF; i++) {
		if ($i == "insns") n = $(i + 1); if ($i == "stack") s = $(i + 1)
		if ($i == "frame") f = $(i + 1) + 0 } }
		END { if (s == "n/a") print n + 0, f, "largest frame (the only one this verifier gives)"
		      else print n + 0, s + 0, "deepest chain" }' <(grep -E "^$mode +$prog " "$TMP/check.txt"))
	if [ "$result" = ok ] && [ "$insns" -le 500000 ] && [ "$stack" -le $((512 - STACK_ROOM)) ]; then
		kpass "$mode: $prog loads: $insns instructions processed, $what $stack of 512 bytes"
	else
		kfail "$mode: $prog loads" "$(grep -E "^$mode +($prog|refused)" "$TMP/check.txt" | tr '\n' '|')"
	fi
done < <(grep -E '^[a-z-]+ +[a-z_]+ +(ok|refused) +insns ' "$TMP/check.txt")
for mode in cpu native off-cpu wall alloc all; do
	if grep -Eq "^$mode +[a-z_]+ +ok " "$TMP/check.txt" && ! grep -q "^$mode refused" "$TMP/check.txt"; then
		kpass "mode $mode loads"
	else
		kfail "mode $mode loads" "$(grep -E "^$mode " "$TMP/check.txt" | tr '\n' '|')"
	fi
done

# --- 6:3:1, JIT on (pprof) and off (SVG) ----------------------------------------
section 6:3:1
w631_run() {	# w631_run NAME OUT [LUAJIT OPTION ROUND]: attached, for SECS
	start_bg "$LJ" ${3:+"$3"} "$WL/w631.lua" - ${4:-}
	local pid=$BGPID
	wait_lua "$pid"
	guard 120 "$1 run" "$PROF" -p "$pid" -d "$SECS" -F "$HZ" --lua-only -o "$2" 2>"$TMP/$1.err"
	cleanup_children
}
# Rounds a tenth as long as the default: a round with the JIT on takes some
# 10 ms here, and some ten times that emulated.
w631_run w631-jit "$TMP/w631.pb.gz" "" 20000
python3 "$TOP/tests/pprof_folded.py" "$TMP/w631.pb.gz" >"$TMP/w631.folded" 2>"$TMP/w631.py.err"
n=$(awk '{ t += $NF } END { print t + 0 }' "$TMP/w631.folded")
if [ "$n" -ge 1000 ]; then
	kpass "6:3:1 JIT on: pprof read back, $n samples"
	for f in a:60 b:30 c:10; do
		kwithin "6:3:1 JIT on: ${f%%:*}" "$(fshare "$TMP/w631.folded" - ";w631\\.lua:${f%%:*}( |;)")" "${f#*:}"
	done
else
	kfail "6:3:1 JIT on: pprof read back" "$n samples: $(tail -n 3 "$TMP/w631-jit.err" "$TMP/w631.py.err" | tr '\n' '|')"
fi
# The interpreter under emulation: rounds a hundredth as long, as many of
# them in a profile as with the JIT.
w631_run w631-joff "$TMP/w631.svg" -joff 2000
if xmllint --noout "$TMP/w631.svg" 2>"$TMP/svg.err"; then
	kpass "6:3:1 -joff: the SVG is well-formed XML"
else
	kfail "6:3:1 -joff: the SVG is well-formed XML" "$(head -c 300 "$TMP/svg.err")"
fi
for f in a:60:9 b:30:10 c:10:11; do
	IFS=: read -r fn want line <<<"$f"
	# A frame's title: "NAME\nN samples, P%".
	got=$(awk -v t="<title>$fn w631.lua:$line" 'index($0, t) { getline; sub(/.*, /, ""); sub(/%.*/, ""); print; exit }' "$TMP/w631.svg")
	kwithin "6:3:1 -joff: $fn, read back from the SVG" "${got:--1}" "$want"
done

# A kernel whose run-time paths another kernel of the matrix takes already
# (CHECKS=lite in tests/kernels/matrix) proves its verifier and 6:3:1
# only; docs/kernels.md, "What each kernel proves".
if [ "${CHECKS:-full}" = lite ]; then
	section end
	echo "END kernel $K"
	exit 0
fi

# --- Off-CPU and wall time against in-process clocks -------------------------------
section off-cpu+wall
offcpu_run() {	# offcpu_run NAME EVENT: offcpu.lua -joff under EVENT, folded
	local fifo=$TMP/$1.fifo
	mkfifo "$fifo.req" "$fifo.resp"
	start_bg "${LJENV[@]}" "$LJ" "$WL/offcpu_feed.lua" "$fifo"
	guard 180 "$1 run" "$PROF" -F "$HZ_WALL" -e "$2" -f folded -o "$TMP/$1.folded" -- \
		"${LJENV[@]}" "$LJ" -joff "$WL/offcpu.lua" "$SECS" "$fifo" >"$TMP/$1.out" 2>"$TMP/$1.err"
	cleanup_children
	# The process with the most time in offcpu.lua (its forks run it too,
	# until they exec), "-" for a profile of one process.
	MAIN=$(busiest_pid "$TMP/$1.folded" offcpu.lua)
	[ -n "$MAIN" ] && [ -n "$(truth "$TMP/$1.out" total)" ] && return 0
	kfail "$1 runs" "no profile or no truth: $(tail -n 4 "$TMP/$1.err" | tr '\n' '|')"
	return 1
}
declare -A FRAME=([burn]=';offcpu.lua:burn' [wait_pipe]=';offcpu.lua:wait_pipe;'
		  [nap]=';offcpu.lua:nap;' [shell]=';offcpu.lua:shell;')
if offcpu_run off off-cpu; then
	o=$TMP/off.out blocked=0
	grep -v ';offcpu.lua:burn' "$TMP/off.folded" >"$TMP/off.parts"
	for part in wait_pipe nap shell; do
		blocked=$(awk -v a="$blocked" -v b="$(truth "$o" $part)" 'BEGIN { print a + b }')
	done
	for part in wait_pipe nap shell; do
		kwithin "off-cpu: $part" "$(fshare "$TMP/off.parts" "$MAIN" "${FRAME[$part]}")" \
			"$(pct "$(truth "$o" $part)" "$blocked")"
	done
fi
if offcpu_run wall wall; then
	for part in burn wait_pipe nap shell; do
		kwithin "wall: $part" "$(fshare "$TMP/wall.folded" "$MAIN" "${FRAME[$part]}")" \
			"$(pct "$(truth "$TMP/wall.out" $part)" "$(truth "$TMP/wall.out" total)")"
	done
fi

# --- --native: a C function called from Lua, under its Lua caller ----------------
section native
start_bg "$LJ" -joff "$WL/native_libm.lua" 60
pid=$BGPID
wait_lua "$pid"
guard 120 "--native run" "$PROF" -p "$pid" -d "$SECS" -F "$HZ" --native -f folded -o "$TMP/native.folded" 2>"$TMP/native.err"
cleanup_children
read -r n in_fn ok < <(awk '{ t += $NF; s = $0; sub(/ [0-9]+$/, "", s)
	if (s ~ /;cbrt(;|$)/) { c += $NF; if (s ~ /;main;.*;native_libm\.lua:spin_cbrt;cbrt(;|$)/) k += $NF } }
	END { print t + 0, c + 0, k + 0 }' "$TMP/native.folded")
if [ "$n" -ge 200 ] && [ $((in_fn * 2)) -ge "$n" ] && [ $((ok * 100)) -ge $((in_fn * 99)) ]; then
	kpass "--native: $ok of $in_fn cbrt samples under main;...;spin_cbrt;cbrt ($n in all)"
else
	kfail "--native chain" "$in_fn of $n samples in cbrt, $ok under main;...;spin_cbrt: $(sort -t' ' -k2 -nr "$TMP/native.folded" | head -n 3 | tr '\n' '|') $(tail -n 2 "$TMP/native.err" | tr '\n' '|')"
fi

# --- --jit: the abort reason ---------------------------------------------------------
section jit
guard 180 "--jit run" "$PROF" --jit -F "$HZ" -- "${LJENV[@]}" "$LJ" "$WL/jit_health.lua" fnew "$SECS" \
	>"$TMP/jit.txt" 2>"$TMP/jit.err"
if grep -Eq '^    abort    jit_health\.lua:[0-9]+ -- NYI: bytecode' "$TMP/jit.txt"; then
	kpass "--jit: $(grep -Em1 'abort +jit_health' "$TMP/jit.txt" | sed 's/^ *//')"
else
	kfail "--jit abort reason" "$(head -c 400 "$TMP/jit.txt" | tr '\n' '|') $(tail -n 2 "$TMP/jit.err" | tr '\n' '|')"
fi

# --- -e alloc: big's share of the bytes --------------------------------------------------
section alloc
b=$TMP/alloc
start_bg "$LJ" "$WL/alloc.lua" 8 "$b.go" >"$b.target"
tgt=$BGPID
if ! wait_for "$b.target" '^ready' 60; then
	kfail "-e alloc: start" "the workload printed no ready line"
else
	# The always-on probe: the default attaches it for windows of a few
	# percent of the time (user space only, the same BPF program), too
	# few bytes of an 8 MiB run for a share.
	start_bg "$PROF" -v -e alloc --alloc-exact --alloc-every 8K -f folded -o "$b.folded" -p "$tgt" 2>"$b.err"
	prof=$BGPID
	if wait_for "$b.err" 'sampling allocations at' 120; then
		touch "$b.go"
		wait "$tgt"
		wait "$prof"
		read -r got n < <(awk '/alloc\.lua:big( |;)/ { b += $NF } /alloc\.lua:small( |;)/ { s += $NF }
			END { if (b + s) printf "%.1f %d\n", 100 * b / (b + s), b + s; else print "-1 0" }' "$b.folded")
		want=$(awk '/^truth/ { split($2, b, "="); split($3, s, "=");
			printf "%.1f", 100 * b[2] / (b[2] + s[2]) }' "$b.target")
		TOL=5 kwithin "-e alloc: big's share of the bytes, $n samples" "$got" "${want:--1}"
	else
		kfail "-e alloc: attach" "$(grep -v '^libbpf: ' "$b.err" | tail -n 3 | tr '\n' '|')"
	fi
	cleanup_children
fi
# --- -a, continuous mode and --heap on a running w631 ----------------------------------
section all+continuous+heap
start_bg "$LJ" "$WL/w631.lua"
pid=$BGPID
wait_lua "$pid"
# tests/truth.sh agent_until: at most 40 s.
agent_until "$TMP/agent" 40 --every 3s 2>"$TMP/agent.err"
n=$(intervals_naming "$TMP/agent" 'w631\.lua:a')
if [ "$n" -ge 2 ]; then
	kpass "-a --continuous: $n interval files name w631.lua:a"
else
	kfail "-a --continuous" "$n interval files name w631.lua:a: $(ls "$TMP/agent" | head -n 5 | tr '\n' ' ') $(tail -n 3 "$TMP/agent.err" | tr '\n' '|')"
fi
guard 120 "speedscope run" "$PROF" -p "$pid" -d 2 -F "$HZ" -f speedscope -o "$TMP/w631.speedscope.json" 2>"$TMP/ss.err"
if python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
names = [f["name"] for f in d["shared"]["frames"]]
sys.exit(0 if any("w631.lua" in n for n in names) and d["profiles"] else 1)' "$TMP/w631.speedscope.json" 2>"$TMP/ss.py.err"; then
	kpass "speedscope: the JSON reads back with w631's frames"
else
	kfail "speedscope read back" "$(tail -n 2 "$TMP/ss.err" "$TMP/ss.py.err" | tr '\n' '|')"
fi
guard 120 "--heap run" "$PROF" --heap -p "$pid" >"$TMP/heap.txt" 2>"$TMP/heap.err"
if grep -q '^# Lua heap census of PID' "$TMP/heap.txt" && grep -q '^table ' "$TMP/heap.txt"; then
	kpass "--heap: a census ($(head -n 1 "$TMP/heap.txt" | cut -c1-80))"
else
	kfail "--heap" "$(head -c 300 "$TMP/heap.txt" "$TMP/heap.err" | tr '\n' '|')"
fi
cleanup_children

section end
dmesg | grep -i 'perf:' | sed 's/^/dmesg: /' | head -n 5
echo "END kernel $K"
