#!/bin/bash
# SPDX-License-Identifier: MIT
# LuaJIT embedded in hosts, attached after start, each with a truth by
# construction:
#   - twovm: two VMs in two threads, each hot in its own function; every
#     sample is attributed to the right VM and thread (pprof tid label);
#   - corohost: requests as coroutines resumed from C (lua_resume), with a
#     coroutine resumed from Lua inside, FFI calls and FFI callbacks
#     (C -> Lua) in the hot path, JIT on and off, GC64 and non-GC64;
#   - sysbench running a Lua test (a VM per worker thread);
#   - Neovim headless running a Lua file;
#   - a process in its own PID namespace, profiled by its host PID, also
#     when its executable exists only inside its own mount namespace.
source "$(dirname "$0")/lib.sh"
source "$TOP/tests/variants.sh"

HZ=999
SECS=2
TOL=5

# profile NAME PID ARGS...: $PROF -p PID -d SECS -F HZ ARGS, output in
# $TMP/NAME, stderr (summary line) in $TMP/NAME.err.
profile() {
	local name=$1 pid=$2; shift 2
	"$PROF" -p "$pid" -d "$SECS" -F "$HZ" "$@" >"$TMP/$name" 2>"$TMP/$name.err"
}

# sum_share FILE REGEX: sum of the jit.p text view's percentages of the
# keys matching REGEX (awk), or empty when none matches.
sum_share() {
	awk -v re="$2" '/^ ?[0-9]+%  / {
			p = $0; sub(/^ */, "", p); sub(/%.*/, "", p)
			k = $0; sub(/^ ?[0-9]+%  /, "", k)
			if (k ~ re) { s += p; hit = 1 }
		}
		END { if (hit) print s }' "$1"
}

# check_sum NAME FILE REGEX WANT TOL
check_sum() {
	local got; got=$(sum_share "$2" "$3")
	margin "$1" "$got" "$4" "$5"
	if near "$got" "$4" "$5"; then pass "$1 (${got}%)"
	else fail "$1" "keys /$3/ got '${got}'% want $4±$5; report: $(tr '\n' '|' < "$2")"; fi
}

# clean_unwind NAME ERRFILE: the summary line reports at least 200 samples
# and unwind errors (bad frame, truncated, read fault) under 1% of them.
# (A rare race at a coroutine switch can cost one sample in thousands.)
clean_unwind() {
	local n e
	n=$(grep -o '[0-9]* samples' "$2" | head -n1 | cut -d' ' -f1)
	e=$(sed -n 's/.*unwind: \([0-9]*\) bad frame, \([0-9]*\) truncated, \([0-9]*\) read fault.*/\1 \2 \3/p' "$2" |
		awk '{ print $1 + $2 + $3 }')
	margin_rate "$1: unwind errors (% of samples, at most)" "$e" "$n" 1
	if [ -n "$n" ] && [ -n "$e" ] && [ "$n" -ge 200 ] && [ $((e * 100)) -lt "$n" ]; then
		pass "$1: unwind errors $e of $n samples"
	else
		fail "$1: unwind errors" "'$e' of '$n' samples: $(cat "$2")"
	fi
}

# thread_ticks PID TID: the thread's user + system CPU time in clock ticks.
thread_ticks() {
	sed 's/.*) //' "/proc/$1/task/$2/stat" 2>/dev/null | awk '{ print $12 + $13 }'
}

# stop PID [SIGNAL]
stop() {
	kill -"${2:-TERM}" "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

# pprof_threads FILE.pb.gz: one line per pprof sample: "tid count chunks",
# chunks being the twovm chunk names (twovm1/twovm2) seen in its stack.
pprof_threads() {
	go tool pprof -symbolize=none -traces -sample_index=samples "$1" 2>/dev/null | awk '
		function flush() { if (n) print tid, n, (c == "" ? "-" : c); tid = ""; n = 0; c = "" }
		/^-----/ { flush(); next }
		$1 == "tid:" { tid = $2; next }
		/^ +[0-9]+ +[^ ]/ && !n { n = $1; sub(/^ +[0-9]+ +/, "") }
		n && /twovm1:/ && c !~ /twovm1/ { c = c "twovm1" }
		n && /twovm2:/ && c !~ /twovm2/ { c = c "twovm2" }
		END { flush() }'
}

# --- two VMs, two threads --------------------------------------------------------
for v in "${TWOVM_VARIANTS[@]}" "${NOGC64_TWOVM_VARIANTS[@]}"; do
	start_bg twovm_exec "$v" 60 >"$TMP/twovm.$v.tids"
	pid=$BGPID
	sleep 0.5
	tid1=$(awk '$1 == "thread" && $2 == 1 { print $4 }' "$TMP/twovm.$v.tids")
	tid2=$(awk '$1 == "thread" && $2 == 2 { print $4 }' "$TMP/twovm.$v.tids")
	profile "twovm.$v.pt" "$pid" --jp F --per-thread &
	profile "twovm.$v.pb.gz" "$pid" -f pprof -v
	wait $!
	# The truth is each thread's CPU time over the same window: on a
	# loaded host the scheduler need not split the two busy threads 50/50.
	c1=$(thread_ticks "$pid" "$tid1") c2=$(thread_ticks "$pid" "$tid2")
	profile "twovm.$v.F" "$pid" --jp F
	c1=$(($(thread_ticks "$pid" "$tid1") - c1)) c2=$(($(thread_ticks "$pid" "$tid2") - c2))
	want1=$(( (c1 * 100 + (c1 + c2) / 2) / (c1 + c2 > 0 ? c1 + c2 : 1) ))
	stop "$pid"
	# --per-thread: one section per thread, each its own VM's function.
	pt=$(awk -v t1="$tid1" -v t2="$tid2" '
		/^=== PID / { tid = $5 }
		/^ ?[0-9]+%  / { p = $1; sub(/%/, "", p)
			if (tid == t1 && $2 == "twovm1:hot_one" && p + 0 >= 95) ok1 = 1
			if (tid == t2 && $2 == "twovm2:hot_two" && p + 0 >= 95) ok2 = 1 }
		END { print ok1 + ok2 }' "$TMP/twovm.$v.pt")
	check "twovm $v: --per-thread gives each thread its own hot function" [ "$pt" = 2 ]
	# GC64 keeps the dispatch table in r14 in the interpreter and in traces:
	# the sampler picks the VM from it, without reading the other's state.
	# (Non-GC64 traces may use r14 for anything: the full search serves.)
	if [[ $v != *nogc64* ]]; then
		read -r n_disp n_all <<<"$(sed -n 's/.* \([0-9]*\) VM by dispatch.*/\1/p; s/^luabpfprof: \([0-9]*\) samples .*/\1/p' \
			"$TMP/twovm.$v.pb.gz.err" | tr '\n' ' ')"
		ok=0
		[ -n "$n_disp" ] && [ -n "$n_all" ] && [ "$n_all" -ge 200 ] &&
			[ $((n_disp * 10)) -ge $((n_all * 9)) ] && ok=1
		check "twovm $v: the VM found from the dispatch register (${n_disp:-?} of ${n_all:-?} samples)" \
			[ "$ok" = 1 ]
	fi
	if ! command -v go >/dev/null; then
		fail "twovm $v: per-thread attribution" "go tool pprof missing (apt.formats)"
		continue
	fi
	pprof_threads "$TMP/twovm.$v.pb.gz" >"$TMP/twovm.$v.threads"
	# Per thread: its own chunk's samples, and samples showing the other
	# VM's chunk (must be none).
	read -r own1 other1 own2 other2 all <<<"$(awk -v t1="$tid1" -v t2="$tid2" '
		{ all += $2 }
		$1 == t1 && $3 == "twovm1" { o1 += $2 }
		$1 == t1 && $3 ~ /twovm2/ { x1 += $2 }
		$1 == t2 && $3 == "twovm2" { o2 += $2 }
		$1 == t2 && $3 ~ /twovm1/ { x2 += $2 }
		$1 != t1 && $1 != t2 && $3 != "-" { x1 += $2 }
		END { print o1 + 0, x1 + 0, o2 + 0, x2 + 0, all + 0 }' "$TMP/twovm.$v.threads")"
	info="tid $tid1: $own1 own/$other1 other, tid $tid2: $own2 own/$other2 other, of $all"
	echo "info: twovm $v: $info"
	if [ -n "$tid1" ] && [ -n "$tid2" ] && [ "$all" -gt 0 ] &&
	   [ "$other1" -eq 0 ] && [ "$other2" -eq 0 ] &&
	   [ $((own1 * 100 / all)) -ge 35 ] && [ $((own2 * 100 / all)) -ge 35 ]; then
		pass "twovm $v: each thread's samples are its own VM's hot function ($info)"
	else
		fail "twovm $v: per-thread attribution" "$info: $(tr '\n' '|' < "$TMP/twovm.$v.threads")"
	fi
	check_share "twovm $v: hot_one (thread CPU time ${c1}:${c2} ticks)" "$TMP/twovm.$v.F" \
		twovm1:hot_one "$want1" 8
	check_share "twovm $v: hot_two" "$TMP/twovm.$v.F" twovm2:hot_two $((100 - want1)) 8
	clean_unwind "twovm $v" "$TMP/twovm.$v.F.err"
done

# --- coroutines resumed from C and from Lua, FFI calls and callbacks ---------------
# corohost.lua: lua_work 40, inner_work 20 (coroutine resumed from Lua),
# cb_work 20 (FFI callback from C), burn 20 (C through the FFI, under
# ffi_phase: the JIT inlines the call, the interpreter shows corohost_burn).
coro_runs=()
for v in deb-host or-host; do coro_runs+=("$v:" "$v:-joff"); done
[ ${#NOGC64_TWOVM_VARIANTS[@]} -gt 0 ] && coro_runs+=("${NOGC64_TWOVM_VARIANTS[-1]}:")
for run in "${coro_runs[@]}"; do
	v=${run%%:*} flags=${run#*:} tag="corohost ${run%:}"
	# shellcheck disable=SC2086
	start_bg corohost_exec "$v" $flags "$WL/corohost.lua" 60 >/dev/null
	pid=$BGPID
	sleep 0.7
	profile "coro.$v$flags" "$pid" --jp F3
	stop "$pid"
	out=$TMP/coro.$v$flags
	echo "info: $tag: $(tr '\n' '|' < "$out")"
	check_sum "$tag: Lua in a coroutine resumed from C" "$out" \
		'^corohost.lua:lua_work < corohost.lua:lua_phase < corohost.lua:[0-9]+$' 40 "$TOL"
	check_sum "$tag: Lua in a coroutine resumed from Lua" "$out" \
		'^corohost.lua:inner_work < corohost.lua:[0-9]+$' 20 "$TOL"
	check_sum "$tag: FFI callback, called from C (corohost_each)" "$out" \
		'^corohost.lua:cb_work < corohost.lua:[0-9]+ < corohost_each$' 20 "$TOL"
	check_sum "$tag: C called through the FFI" "$out" \
		'^(corohost_burn < )?corohost.lua:ffi_phase < ' 20 "$TOL"
	clean_unwind "$tag" "$out.err"
	check "$tag: no unknown frames" bash -c "! grep -q unknown '$out'"
done

# --- sysbench running a Lua test ---------------------------------------------------
if command -v sysbench >/dev/null; then
	start_bg sysbench --threads=2 --time=60 "$WL/sysbench_hot.lua" run >"$TMP/sysbench.out" 2>&1
	pid=$BGPID
	sleep 1
	profile sysbench.F "$pid" --jp F
	stop "$pid"
	check_share "sysbench: hot_a" "$TMP/sysbench.F" sysbench_hot.lua:hot_a 75 "$TOL"
	check_share "sysbench: hot_b" "$TMP/sysbench.F" sysbench_hot.lua:hot_b 25 "$TOL"
	clean_unwind "sysbench" "$TMP/sysbench.F.err"
else
	fail "sysbench" "not installed (tests/deps/apt.variants)"
fi

# --- Neovim headless ----------------------------------------------------------------
if command -v nvim >/dev/null; then
	mkdir -p "$TMP/xdg"
	start_bg env NVIM_HOT_SECS=60 XDG_CONFIG_HOME="$TMP/xdg" XDG_DATA_HOME="$TMP/xdg" \
		XDG_STATE_HOME="$TMP/xdg" XDG_CACHE_HOME="$TMP/xdg" \
		nvim --headless -u NONE -i NONE -n -c "luafile $WL/nvim_hot.lua" </dev/null >"$TMP/nvim.out" 2>&1
	pid=$BGPID
	sleep 1
	profile nvim.F "$pid" --jp F
	stop "$pid" KILL	# nvim handles SIGTERM in its event loop, which Lua blocks
	check_share "nvim: hot_a" "$TMP/nvim.F" nvim_hot.lua:hot_a 75 "$TOL"
	check_share "nvim: hot_b" "$TMP/nvim.F" nvim_hot.lua:hot_b 25 "$TOL"
	clean_unwind "nvim" "$TMP/nvim.F.err"
else
	fail "nvim" "not installed (tests/deps/apt.variants)"
fi

# --- a PID namespace, profiled by the host PID --------------------------------------
# ns_child UNSHARE_PID: the process unshare forked (PID 1 inside).
ns_child() {
	local c
	for _ in $(seq 30); do
		c=$(pgrep -P "$1" | head -n1)
		[ -n "$c" ] && { echo "$c"; return 0; }
		sleep 0.1
	done
	return 1
}

pidns_run() {
	local name=$1; shift
	# --kill-child: the namespace's PID 1 dies with unshare, whatever happens.
	start_bg unshare --pid --fork --kill-child --mount-proc "$@" 2>"$TMP/$name.unshare.err"
	local up=$BGPID child
	child=$(ns_child "$up")
	sleep 0.5
	if [ -z "$child" ]; then
		fail "$name" "no process in the namespace: $(cat "$TMP/$name.unshare.err")"
		stop "$up" KILL
		return
	fi
	local nspid
	nspid=$(awk '/^NSpid:/ { print $NF }' "/proc/$child/status")
	profile "$name.F" "$child" --jp F
	# unshare ignores SIGTERM while it waits, and a namespace's PID 1 only
	# gets the signals it handles, but SIGKILL from the host.
	kill -KILL "$child"
	stop "$up"
	check "$name: host PID $child is PID $nspid inside" test "$nspid" = 1
	check_share "$name: a" "$TMP/$name.F" w631.lua:a 60 "$TOL"
	check_share "$name: b" "$TMP/$name.F" w631.lua:b 30 "$TOL"
	check_share "$name: c" "$TMP/$name.F" w631.lua:c 10 "$TOL"
	clean_unwind "$name" "$TMP/$name.F.err"
}

pidns_run pidns "$LUAJIT" "$WL/w631.lua" 60
# The executable only exists in the namespace's own tmpfs mount: the host
# path in /proc/PID/maps names an empty directory.
mkdir -p "$TMP/nsbin"
pidns_run pidns-private-mount --propagation private sh -c \
	'mount -t tmpfs none "$1" && cp "$2" "$1/luajit-ns" && exec "$1/luajit-ns" "$3" 60' \
	sh "$TMP/nsbin" "$(readlink -f "$LUAJIT_EXE")" "$WL/w631.lua"
check "pidns-private-mount: the executable is not visible from the host" \
	test ! -e "$TMP/nsbin/luajit-ns"

cleanup_children
