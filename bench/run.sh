#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/run.sh: luabpfprof's benchmarks (`sudo make bench`).  Measures the
# five figures described in bench/README.md and writes bench/RESULTS.md.
#
# Environment (all optional):
#   BENCH_T=0.5      wall seconds of each throughput window of figure 1
#                    (nginx: wrk runs of this, rounded to whole seconds)
#   BENCH_REPS=5     alternating repetitions of every configuration
#   BENCH_FIGS="1 2 3 6 7 8 9 10 11 12 13"  figures to run (4 comes with 1, 5 with 3)
#   BENCH_WORKLOADS="w631 numeric tables nginx"  figure 1's workloads
#   BENCH_OUT=bench/RESULTS.md   where the report goes
#   BENCH_KEEP=1     keep the work directory (raw data, profiles)
#   BENCH_PROF=PATH  the luabpfprof binary to measure (default: this tree's)
# The raw data of the last run is copied to bench/.out/ (not committed);
# bench/report.sh bench/.out rebuilds the report from it.
set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP" || exit 1
# shellcheck source=bench/lib.sh
source "$TOP/bench/lib.sh"

PROF_SRC=${BENCH_PROF:-$TOP/luabpfprof}
BW=$TOP/bench/workloads
T=${BENCH_T:-0.5}
REPS=${BENCH_REPS:-5}
FIGS=${BENCH_FIGS:-"1 2 3 6 7 8 9 10 11 12 13"}
WLS=${BENCH_WORKLOADS:-"w631 numeric tables nginx"}
OUT=${BENCH_OUT:-$TOP/bench/RESULTS.md}
WORK=$(mktemp -d /tmp/lbp-bench.XXXXXX)
START=$(now)
NCPU=$(nproc)
# The target runs on TCPU; profilers, wrk and helpers on the other CPU, so
# their user-space work is not charged to the target (figure 3 shows it).
TCPU=$((NCPU - 1))
OCPU=0
# Debian's LuaJIT, extracted privately (tests/bin/luajit): an installed
# luajit package may be absent (it conflicts with nginx's Lua module).
LUAJIT=${LUAJIT:-$TOP/tests/bin/luajit}

log() { printf '[%5.0fs] %s\n' "$(echo "$(now) - $START" | bc)" "$*" >&2; }
die() { echo "bench: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "needs root (sudo make bench)"
[ -x "$PROF_SRC" ] || die "build luabpfprof first (make)"
# The tree may be rebuilt while the bench runs: measure one copy of the
# binary throughout.
PROF=$(mktemp /tmp/lbp-bench-bin.XXXXXX)
cp "$PROF_SRC" "$PROF" && chmod 755 "$PROF" || die "cannot copy $PROF_SRC"
PROF_VERSION="$(git -C "$TOP" describe --always --dirty 2>/dev/null || echo '?'), built $(date -u -r "$PROF_SRC" '+%Y-%m-%d %H:%M UTC')"
"$LUAJIT" -e '' 2>/dev/null || die "no LuaJIT: $LUAJIT (make test-deps extracts it into .deps/)"
command -v bpftool >/dev/null || die "no bpftool"
[ "$NCPU" -ge 2 ] || die "needs at least 2 CPUs (target and tools on separate CPUs)"
HAVE_PERF=0
perf --version >/dev/null 2>&1 && HAVE_PERF=1
HAVE_WRK=0
command -v wrk >/dev/null && HAVE_WRK=1

# Everything we start is in PIDS, and only those are ever killed.
PIDS=()
STATS_WAS=$(cat /proc/sys/kernel/bpf_stats_enabled)
cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
	PIDS=()
	echo "$STATS_WAS" > /proc/sys/kernel/bpf_stats_enabled
	rm -f "$PROF"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# A target that died leaves its command pipe without a reader: writes to it
# must fail, not kill the run.
trap '' PIPE

# forget PID: drop PID from PIDS once it has been reaped.
forget() {
	local p keep=()
	for p in "${PIDS[@]}"; do [ "$p" = "$1" ] || keep+=("$p"); done
	PIDS=("${keep[@]}")
}

# stop PID [SIG]: signal and reap one of our processes.
stop() {
	kill -"${2:-TERM}" "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	forget "$1"
}

# ---------------------------------------------------------------------------
# Profilers attached to a running PID.  start_profiler sets PROFPID and
# returns once sampling is live; the profiler starts on any CPU (its
# start-up is quicker) and is then pinned to the tools CPU.  CFG is base,
# lbpHZ, idleHZ, perfHZ or jpI (jit.p runs inside the target: nothing to
# attach).

start_profiler() {
	local cfg=$1 pid=$2 tag=$3
	PROFPID= IDLEPID=
	case $cfg in
	lbp*)
		"$PROF" -p "$pid" -F "${cfg#lbp}" --jp F -f folded \
			-o "$WORK/$tag.folded" 2> "$WORK/$tag.summary" &
		PROFPID=$!
		PIDS+=("$PROFPID")
		wait_attached "$PROFPID" "$NCPU" || { log "luabpfprof did not attach ($tag)"; return 1; }
		;;
	idle*)
		# The timer path alone: luabpfprof on a LuaJIT process that
		# never runs, so every tick on the target's CPU takes the early
		# exit (the per-CPU events fire there all the same).
		taskset -c $OCPU "$LUAJIT" -e 'local ffi = require("ffi")
			ffi.cdef("int pause(void);") ffi.C.pause()' &
		IDLEPID=$!
		PIDS+=("$IDLEPID")
		sleep 0.2
		"$PROF" -p "$IDLEPID" -F "${cfg#idle}" -f folded \
			-o "$WORK/$tag.folded" 2> "$WORK/$tag.summary" &
		PROFPID=$!
		PIDS+=("$PROFPID")
		wait_attached "$PROFPID" "$NCPU" || { log "luabpfprof did not attach ($tag)"; return 1; }
		;;
	perf*)
		perf record -q -B -N -F "${cfg#perf}" -g -p "$pid" \
			-o "$WORK/$tag.perf.data" > /dev/null 2> "$WORK/$tag.perf.log" &
		PROFPID=$!
		PIDS+=("$PROFPID")
		wait_attached "$PROFPID" 1 || { log "perf record did not attach ($tag)"; return 1; }
		;;
	esac
	[ -n "$PROFPID" ] && taskset -a -p -c $OCPU "$PROFPID" > /dev/null 2>&1
	return 0
}

# stop_profiler: stops PROFPID (SIGINT: luabpfprof drains, symbolizes while
# the target is still alive, writes its output and summary).
stop_profiler() {
	[ -n "$PROFPID" ] && stop "$PROFPID" INT
	[ -n "$IDLEPID" ] && stop "$IDLEPID"
	PROFPID= IDLEPID=
}

# ---------------------------------------------------------------------------
# Figure 1 (and 4): throughput.  One process per workload and repetition
# serves every window: the baseline, then each configuration in a rotated
# order, each followed by another baseline window.  A configuration is
# compared with the mean of the two baseline windows around it: same
# process, same compiled traces, seconds apart.

CONFIGS=(lbp99 lbp999 lbp4999 perf99 perf999 perf4999 idle4999)

# usable CFG: whether this machine can run configuration CFG.
usable() {
	case $1 in
	perf*) [ $HAVE_PERF = 1 ] ;;
	*) true ;;
	esac
}

# rotated REP: the configurations in the order used by repetition REP.
# jit.p comes last: starting and stopping it flushes the compiled traces,
# and the baselines after it run on re-recorded ones.
rotated() {
	local n=${#CONFIGS[@]} k i
	k=$(( ($1 - 1) * 2 % n ))
	for ((i = 0; i < n; i++)); do echo "${CONFIGS[$(( (i + k) % n ))]}"; done
	if [ $(($1 % 2)) = 1 ]; then echo jp10 jp1; else echo jp1 jp10; fi
}

# Polls (every 20 ms) before a window is given up: 4 times its length + 3 s.
WIN_POLLS=$(awk -v t="$T" 'BEGIN {printf "%d", 50 * (3 + 4 * t)}')

# The target of the current repetition: its pid, output file, and fd 7 to
# its stdin.
TPID= TOUT= NRES=0

# target_start WL REP: starts the workload in window mode; waits for ready.
target_start() {
	local fifo=$WORK/go.fifo i=0
	TOUT=$WORK/$1.$2.out
	NRES=0
	rm -f "$fifo"
	mkfifo "$fifo"
	# Read-write: opening never blocks, even if the target died at once.
	exec 7<> "$fifo"
	# The target must not hold a write end of its own command pipe.
	nice -n -10 taskset -c $TCPU "$LUAJIT" "$BW/$1.lua" bench "$T" < "$fifo" > "$TOUT" 2>&1 7>&- &
	TPID=$!
	PIDS+=("$TPID")
	until grep -q '^ready' "$TOUT" 2>/dev/null; do
		sleep 0.02
		i=$((i + 1))
		if [ $i -gt 1500 ] || ! kill -0 "$TPID" 2>/dev/null; then
			log "$1 did not start: $(tail -2 "$TOUT")"
			target_stop
			return 1
		fi
	done
}

target_stop() {
	echo quit >&7 2>/dev/null
	exec 7>&-
	local i=0
	while kill -0 "$TPID" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.02; i=$((i + 1)); done
	stop "$TPID"
	TPID=
}

# window CMD...: sends a command; sets RES to the "units cpu wall [split]"
# it reports (never run in a subshell: it counts the target's results).
RES=
window() {
	local i=0
	RES="NA NA NA"
	echo "$*" >&7 || return
	NRES=$((NRES + 1))
	while [ "$(grep -c '^result' "$TOUT")" -lt $NRES ]; do
		sleep 0.02
		i=$((i + 1))
		if [ $i -gt "$WIN_POLLS" ] || ! kill -0 "$TPID" 2>/dev/null; then
			return
		fi
	done
	RES=$(awk -v n=$NRES '$1 == "result" && ++k == n {$1 = ""; print substr($0, 2)}' "$TOUT")
}

# measure_lua WL CFG REP: one configuration's window; sets RES.
measure_lua() {
	local wl=$1 cfg=$2 rep=$3 tag="$1.$2.$3"
	RES="NA NA NA"
	case $cfg in
	base) window go ;;
	jp*) window jp "Fm0ri${cfg#jp}" "$WORK/$tag.jp" ;;
	*)
		start_profiler "$cfg" "$TPID" "$tag" && window go
		stop_profiler
		rm -f "$WORK/$tag.perf.data"
		;;
	esac
}

# with_retry CMD...: runs CMD up to 3 times, 5 s apart (a CPU taken offline
# by another test on the machine makes taskset fail for a while).
with_retry() {
	local i
	for i in 1 2 3; do
		"$@" && return 0
		[ $i -lt 3 ] && sleep 5
	done
	return 1
}

bench_lua() {
	local wl=$1 rep cfg k=0
	for ((rep = 1; rep <= REPS; rep++)); do
		with_retry target_start "$wl" "$rep" || continue
		k=0
		measure_lua "$wl" base "$rep"
		echo "$wl base $rep.$k $RES" >> "$WORK/fig1.tsv"
		for cfg in $(rotated "$rep"); do
			usable "$cfg" || continue
			measure_lua "$wl" "$cfg" "$rep"
			echo "$wl $cfg $rep.$k $RES" >> "$WORK/fig1.tsv"
			k=$((k + 1))
			measure_lua "$wl" base "$rep"
		echo "$wl base $rep.$k $RES" >> "$WORK/fig1.tsv"
		done
		target_stop
		log "figure 1: $wl repetition $rep/$REPS done"
	done
}

# ---------------------------------------------------------------------------
# Figure 1, nginx + Lua under wrk: one worker process, the same sequence of
# windows (wrk runs).  jit.p is started and stopped in the worker through a
# control port, as an OpenResty user would (there is no `nginx -jp`).
# Throughput: requests per CPU second of the worker; requests per wall
# second are shown alongside.

NGX_PORT=$((20000 + $$ % 20000))
NGX_CTL=$((NGX_PORT + 1))
NGX_NOTE=
NGX_DIR=$WORK/nginx

ngx_conf() {
	local dir=$NGX_DIR
	mkdir -p "$dir/tmp"
	cat > "$dir/nginx.conf" <<-EOF
	user root;
	worker_processes 1;
	daemon off;
	error_log $dir/error.log warn;
	pid $dir/nginx.pid;
	load_module $NGINX_MODDIR/ndk_http_module.so;
	load_module $NGINX_MODDIR/ngx_http_lua_module.so;
	events { worker_connections 256; }
	http {
		access_log off;
		client_body_temp_path $dir/tmp/body;
		proxy_temp_path $dir/tmp/proxy;
		fastcgi_temp_path $dir/tmp/fcgi;
		uwsgi_temp_path $dir/tmp/uwsgi;
		scgi_temp_path $dir/tmp/scgi;
		lua_package_path "$BW/?.lua;$NGINX_LUAPATH;;";
		server {
			listen 127.0.0.1:$NGX_PORT;
			location / { content_by_lua_block { require("nginx_app").handle() } }
		}
		server {
			listen 127.0.0.1:$NGX_CTL;
			location /jp/start { content_by_lua_block {
				require("jit.p").start(ngx.var.arg_mode, ngx.var.arg_file) ngx.say("ok") } }
			location /jp/stop { content_by_lua_block {
				require("jit.p").stop() collectgarbage() collectgarbage() ngx.say("ok") } }
		}
	}
	EOF
}

NGX_MASTER= NGX_WORKERPID=
ngx_start() {
	local i=0
	ngx_conf
	LD_LIBRARY_PATH=$NGINX_LIBPATH nice -n -10 taskset -c $TCPU "$NGINX_BIN" -p "$NGX_DIR" \
		-c "$NGX_DIR/nginx.conf" -e "$NGX_DIR/error.log" > /dev/null 2>&1 &
	NGX_MASTER=$!
	PIDS+=("$NGX_MASTER")
	until curl -sf -o /dev/null "http://127.0.0.1:$NGX_PORT/?n=1"; do
		sleep 0.05
		i=$((i + 1))
		if [ $i -gt 200 ] || ! kill -0 "$NGX_MASTER" 2>/dev/null; then
			log "nginx did not start: $(tail -3 "$NGX_DIR/error.log" 2>/dev/null)"
			stop "$NGX_MASTER" QUIT
			return 1
		fi
	done
	NGX_WORKERPID=$(pgrep -P "$NGX_MASTER" | head -1)
	[ -n "$NGX_WORKERPID" ] || return 1
	# Warm up: the JIT compiles the handler.
	nice -n -10 taskset -c $OCPU wrk -t1 -c4 -d2s "http://127.0.0.1:$NGX_PORT/" > /dev/null 2>&1
}

WRK_D=$(awk -v t="$T" 'BEGIN {d = int(t + 0.5); print d < 1 ? 1 : d}')

# wrk_window: sets RES to "requests worker-cpu wall".
wrk_window() {
	local c0 c1 w0 w1 req
	RES="NA NA NA"
	c0=$(cpu_ns "$NGX_WORKERPID")
	w0=$(now)
	req=$(nice -n -10 taskset -c $OCPU wrk -t1 -c4 -d"${WRK_D}s" "http://127.0.0.1:$NGX_PORT/" 2>/dev/null |
		awk '/requests in/ {print $1}')
	c1=$(cpu_ns "$NGX_WORKERPID")
	w1=$(now)
	[ -z "$req" ] || [ -z "$c1" ] || [ -z "$c0" ] && return
	RES=$(awk -v r="$req" -v a="$c0" -v b="$c1" -v x="$w0" -v y="$w1" \
		'BEGIN {printf "%d %.6f %.6f\n", r, (b - a) / 1e9, y - x}')
}

# measure_ngx CFG REP: sets RES.
measure_ngx() {
	local cfg=$1 rep=$2 tag="nginx.$1.$2"
	RES="NA NA NA"
	case $cfg in
	base) wrk_window ;;
	jp*)
		curl -sf -o /dev/null "http://127.0.0.1:$NGX_CTL/jp/start?mode=Fm0ri${cfg#jp}&file=$WORK/$tag.jp"
		# Starting jit.p flushes the compiled traces: warm up again.
		nice -n -10 taskset -c $OCPU wrk -t1 -c4 -d1s "http://127.0.0.1:$NGX_PORT/" > /dev/null 2>&1
		wrk_window
		curl -sf -o /dev/null "http://127.0.0.1:$NGX_CTL/jp/stop"
		nice -n -10 taskset -c $OCPU wrk -t1 -c4 -d1s "http://127.0.0.1:$NGX_PORT/" > /dev/null 2>&1
		;;
	*)
		start_profiler "$cfg" "$NGX_WORKERPID" "$tag" && wrk_window
		stop_profiler
		rm -f "$WORK/$tag.perf.data"
		;;
	esac
}

bench_nginx() {
	local setup rep cfg k
	if [ $HAVE_WRK = 0 ]; then
		NGX_NOTE="skipped: wrk is not installed (tests/deps/apt.bench lists it)"
		return
	fi
	if ! setup=$("$TOP/bench/setup-nginx.sh" 2> "$WORK/nginx-setup.err"); then
		NGX_NOTE="skipped: nginx with lua-nginx-module is not available ($(tr '\n' ' ' < "$WORK/nginx-setup.err"))"
		return
	fi
	eval "$setup"
	if ! with_retry ngx_start; then
		NGX_NOTE="skipped: nginx did not start"
		return
	fi
	NGX_NOTE="nginx $(LD_LIBRARY_PATH=$NGINX_LIBPATH "$NGINX_BIN" -v 2>&1 | sed 's/.*version: //') from $NGINX_SRC; one worker on CPU $TCPU; \`wrk -t1 -c4 -d${WRK_D}s\` on CPU $OCPU."
	for ((rep = 1; rep <= REPS; rep++)); do
		k=0
		measure_ngx base "$rep"
		echo "nginx base $rep.$k $RES" >> "$WORK/fig1.tsv"
		for cfg in $(rotated "$rep"); do
			usable "$cfg" || continue
			measure_ngx "$cfg" "$rep"
			echo "nginx $cfg $rep.$k $RES" >> "$WORK/fig1.tsv"
			k=$((k + 1))
			measure_ngx base "$rep"
		echo "nginx base $rep.$k $RES" >> "$WORK/fig1.tsv"
		done
		log "figure 1: nginx repetition $rep/$REPS done"
	done
	stop "$NGX_MASTER" QUIT
}

# ---------------------------------------------------------------------------
# Figure 2: BPF cost per sample (bpf_stats).  Every invocation of the
# program is counted, on every CPU; the target's samples are counted by the
# program's own `counters` map (slot 0, CNT_SAMPLES), so the rest are early
# exits.  The early-exit cost is measured first, with luabpfprof on an idle
# LuaJIT process while a busy non-Lua loop runs; the depth rows subtract
# that cost for their early exits:
#   cost per sample = (run_time_ns - early_exits * early_cost) / samples

FIG2_HZ=999
FIG2_WIN=1.5

# bpf_window LBPPID SECONDS: prints "d_ns d_cnt d_samples" over a window.
bpf_window() {
	local lbp=$1 prog map a b s0 s1
	prog=$(lbp_prog "$lbp") || return 1
	map=$(lbp_counters_map "$lbp") || return 1
	a=$(prog_stats "$prog")
	s0=$(counter_sum "$map")
	sleep "$2"
	b=$(prog_stats "$prog")
	s1=$(counter_sum "$map")
	echo "$a $b $s0 $s1" | awk '{printf "%.0f %.0f %.0f\n", $3 - $1, $4 - $2, $6 - $5}'
}

# run_early HZ REP
run_early() {
	local hz=$1 rep=$2 fifo=$WORK/idle.fifo idle busy lbp res
	rm -f "$fifo"
	mkfifo "$fifo"
	exec 8<> "$fifo"
	# Only fd 8 writes to the idle process: closing it ends the process.
	taskset -c $TCPU "$LUAJIT" -e 'io.read()' < "$fifo" 8>&- &
	idle=$!
	PIDS+=("$idle")
	taskset -c $TCPU sh -c 'while :; do :; done' 8>&- &
	busy=$!
	PIDS+=("$busy")
	sleep 0.2
	"$PROF" -p "$idle" -F "$hz" -f folded -o "$WORK/early$hz.$rep.folded" \
		2> "$WORK/early$hz.$rep.summary" 8>&- &
	lbp=$!
	PIDS+=("$lbp")
	if wait_attached "$lbp" "$NCPU"; then
		taskset -a -p -c $OCPU "$lbp" > /dev/null 2>&1
		res=$(bpf_window "$lbp" $FIG2_WIN)
	fi
	stop "$lbp" INT
	stop "$busy"
	exec 8>&-
	wait "$idle" 2>/dev/null
	forget "$idle"
	echo "early$hz $rep ${res:-NA NA NA}" >> "$WORK/fig2.tsv"
}

run_depth() {
	local depth=$1 rep=$2 wl lbp res frames
	taskset -c $TCPU "$LUAJIT" "$BW/depth.lua" "$depth" &
	wl=$!
	PIDS+=("$wl")
	sleep 0.3
	"$PROF" -p "$wl" -F $FIG2_HZ -f folded -o "$WORK/depth$depth.$rep.folded" \
		2> "$WORK/depth$depth.$rep.summary" &
	lbp=$!
	PIDS+=("$lbp")
	if wait_attached "$lbp" "$NCPU"; then
		taskset -a -p -c $OCPU "$lbp" > /dev/null 2>&1
		res=$(bpf_window "$lbp" $FIG2_WIN)
	fi
	stop "$lbp" INT
	stop "$wl"
	# The depth the walker saw: frames of the most frequent stack.
	frames=$(sort -k2 -n -r -t' ' "$WORK/depth$depth.$rep.folded" 2>/dev/null | head -1 |
		awk '{n = split($1, f, ";"); print n - 1}')
	echo "d$depth $rep ${res:-NA NA NA} ${frames:-NA}" >> "$WORK/fig2.tsv"
}

bench_fig2() {
	local rep d
	echo 1 > /proc/sys/kernel/bpf_stats_enabled
	for ((rep = 1; rep <= REPS; rep++)); do
		for d in 99 999 4999; do run_early "$d" "$rep"; done
		for d in 5 20 100 250; do run_depth "$d" "$rep"; done
		log "figure 2: repetition $rep/$REPS done"
	done
}

# ---------------------------------------------------------------------------
# Figures 3 and 5: luabpfprof's own CPU and BPF cost with 1, 10 and 50
# CPU-bound LuaJIT processes (w631, on the target CPU).  -a when it finds
# them, else the same processes as a -p list.

FIG3_WIN=1.5
ALL_MODE=p

# check_all: whether -a finds a LuaJIT process (a depth.lua only we run).
check_all() {
	local wl
	taskset -c $TCPU "$LUAJIT" "$BW/depth.lua" 7 &
	wl=$!
	PIDS+=("$wl")
	sleep 0.3
	timeout 30 "$PROF" -a -d 2 -f folded -o "$WORK/all-check.folded" 2> "$WORK/all-check.summary"
	stop "$wl"
	grep -q 'depth.lua:leaf' "$WORK/all-check.folded" 2>/dev/null && ALL_MODE=a
	log "figure 3: -a $([ $ALL_MODE = a ] && echo "works" || echo "found nothing: using -p lists")"
}

# run_scale SEL N HZ REP: N CPU-bound LuaJIT processes profiled by one
# luabpfprof, selected with -p (SEL p) or -a (SEL a; a -p list when -a does
# not work).  Appends "SELN HZ REP cpu_frac startup_ms d_ns d_cnt
# d_samples others" to fig3.tsv.
run_scale() {
	local selm=$1 n=$2 hz=$3 rep=$4 pids=() p list lbp c0 c1 w0 w1 res start_ns i others
	for ((i = 0; i < n; i++)); do
		taskset -c $TCPU "$LUAJIT" "$BW/w631.lua" &
		pids+=($!)
		PIDS+=($!)
	done
	sleep 0.3
	list=$(IFS=,; echo "${pids[*]}")
	local sel=(-p "$list")
	[ "$selm" = a ] && [ $ALL_MODE = a ] && sel=(-a)
	# Other LuaJIT processes on the machine, which -a profiles too.
	others=$(( $(pgrep -c -x luajit) - n ))
	"$PROF" "${sel[@]}" -F "$hz" -f folded -o "$WORK/scale$selm$n.$hz.$rep.folded" \
		2> "$WORK/scale$selm$n.$hz.$rep.summary" &
	lbp=$!
	PIDS+=("$lbp")
	if wait_attached "$lbp" "$NCPU" 60; then
		taskset -a -p -c $OCPU "$lbp" > /dev/null 2>&1
		start_ns=$(cpu_ns "$lbp")
		c0=$start_ns
		w0=$(now)
		res=$(bpf_window "$lbp" $FIG3_WIN)
		c1=$(cpu_ns "$lbp")
		w1=$(now)
	fi
	stop "$lbp" INT
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; forget "$p"; done
	if [ -n "${c1:-}" ] && [ -n "${res:-}" ]; then
		echo "$selm$n $hz $rep $(awk -v a="$c0" -v b="$c1" -v x="$w0" -v y="$w1" -v s="$start_ns" \
			'BEGIN {printf "%.6f %.3f", (b - a) / 1e9 / (y - x), s / 1e6}') $res $others" >> "$WORK/fig3.tsv"
	else
		echo "$selm$n $hz $rep NA NA NA NA NA $others" >> "$WORK/fig3.tsv"
	fi
}

bench_fig3() {
	local rep cfg cfgs
	echo 1 > /proc/sys/kernel/bpf_stats_enabled
	check_all
	# Figure 3: one process (-p) and 10 (-a) at 99 and 999 Hz; figure 5:
	# 1, 10 and 50 under -a at 999 Hz (without -a, 1 is the -p row).
	cfgs=("p 1 99" "p 1 999" "a 10 99" "a 10 999" "a 50 999")
	[ $ALL_MODE = a ] && cfgs+=("a 1 999")
	for ((rep = 1; rep <= REPS; rep++)); do
		for cfg in "${cfgs[@]}"; do
			# shellcheck disable=SC2086
			run_scale $cfg "$rep"
		done
		log "figures 3 and 5: repetition $rep/$REPS done"
	done
}

# ---------------------------------------------------------------------------
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
# bpf_stats adds two clock reads to every BPF program run: off for figure 1.
echo 0 > /proc/sys/kernel/bpf_stats_enabled
: > "$WORK/fig1.tsv"
: > "$WORK/fig2.tsv"
: > "$WORK/fig3.tsv"
log "work directory $WORK; T=$T s, $REPS repetitions, figures: $FIGS"
for fig in $FIGS; do
	case $fig in
	1)
		for wl in $WLS; do
			if [ "$wl" = nginx ]; then bench_nginx; else bench_lua "$wl"; fi
		done
		;;
	2) bench_fig2 ;;
	3) bench_fig3 ;;
	esac
done
echo "$STATS_WAS" > /proc/sys/kernel/bpf_stats_enabled
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)
ELAPSED=$(echo "$(now) - $START" | bc)
log "measurements done; writing $OUT"

# Keep the raw data (tables, summaries, folded profiles, jit.p reports) and
# the settings, so that the report can be rebuilt: bench/report.sh bench/.out
rm -rf "$WORK/nginx" "$WORK"/*.fifo
NGINX_BIN=${NGINX_BIN:-} NGINX_LIBPATH=${NGINX_LIBPATH:-}
RUN_DATE=$(date -u '+%Y-%m-%d %H:%M UTC')
for v in RUN_DATE T REPS FIGS LOAD0 LOAD1 ELAPSED NGX_NOTE ALL_MODE LUAJIT TCPU OCPU FIG2_HZ FIG2_WIN \
	FIG3_WIN PROF_VERSION NGINX_BIN NGINX_LIBPATH HAVE_PERF; do
	printf '%s=%q\n' "$v" "${!v}"
done > "$WORK/env.sh"
rm -rf "$TOP/bench/.out"
cp -r "$WORK" "$TOP/bench/.out"
"$TOP/bench/report.sh" "$WORK" > "$OUT.tmp" && mv "$OUT.tmp" "$OUT" || die "report failed"
# fig_wanted N: whether figure N is in BENCH_FIGS.
fig_wanted() { [[ " $FIGS " == *" $1 "* ]]; }
# Figure 6: the node agent's own CPU with 20 LuaJIT processes.
if fig_wanted 6; then
	log "figure 6: the agent with 20 processes"
	"$TOP/bench/agent.sh" 20 20 >> "$OUT"
fi
# Figure 7: the off-CPU mode's cost on a context-switch-heavy target.
if fig_wanted 7; then
	log "figure 7: -e off-cpu on a ping-pong"
	OFFCPU_OPTS="--off-cpu-rate 1" PROF=$PROF TCPU=$TCPU "$TOP/bench/offcpu.sh" "$REPS" >> "$OUT"
fi
# Figure 8: the target's slowdown under -e alloc.
if fig_wanted 8; then
	log "figure 8: -e alloc's slowdown"
	PROF=$PROF "$TOP/bench/alloc.sh" "$REPS" 1 >> "$OUT"
fi
# Figure 9: --jit's polls of the JIT state.
if fig_wanted 9; then
	log "figure 9: --jit's polls"
	PROF=$PROF "$TOP/bench/jit.sh" "$REPS" 1 >> "$OUT"
fi
# Figure 10: --native's cost, next to perf record --call-graph dwarf.
if fig_wanted 10; then
	log "figure 10: --native against perf --call-graph dwarf"
	PROF=$PROF "$TOP/bench/native.sh" "$REPS" 2 >> "$OUT"
fi
# Figure 11: -e off-cpu at its default rate (figure 7 walks every switch).
if fig_wanted 11; then
	log "figure 11: -e off-cpu at its default rate on a ping-pong"
	OFFCPU_FIG=11 OFFCPU_TARGET=10 PROF=$PROF TCPU=$TCPU "$TOP/bench/offcpu.sh" "$REPS" >> "$OUT"
fi
# Figure 12: -e alloc at its default duty cycle, and its shares.
if fig_wanted 12; then
	log "figure 12: -e alloc's windows"
	PROF=$PROF "$TOP/bench/alloc_duty.sh" 4 15 >> "$OUT"
fi
# Figure 13: both defaults on nginx + Lua under wrk.
if fig_wanted 13; then
	log "figure 13: -e off-cpu and -e alloc on nginx under wrk"
	PROF=$PROF "$TOP/bench/nginx_events.sh" 5 5 >> "$OUT"
fi
rm -f "$PROF"
[ "${BENCH_KEEP:-0}" = 1 ] || rm -rf "$WORK"
log "done: $OUT"
