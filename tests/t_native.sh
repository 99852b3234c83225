#!/bin/bash
# SPDX-License-Identifier: MIT
# --native: whole stacks, native and Lua frames interleaved, without frame
# pointers (docs/native.md).
#   - tests/hosts/nhost.c (-O2 -fomit-frame-pointer): main -> run_frame (C)
#     -> lua_pcall -> Lua update -> FFI physics_step (C) -> callback Lua
#     on_hit, and a lua_CFunction c_work; each part timed in-process.  On
#     Debian's and OpenResty's LuaJIT, JIT on and off: every sample in
#     physics_step has main;run_frame;...;update;physics_step, every one in
#     on_hit ...;physics_step;on_hit; the shares are within TOL points of
#     the truth; 99% of samples unwind to _start.
#   - FFI into libm (ffi.C.cbrt in a Lua loop): ...;spin_cbrt;cbrt, named
#     from libm's .dynsym, on both LuaJIT executables, JIT on and off; and
#     from a coroutine resumed from Lua: ...;coroutine.wrap_aux;...;cbrt.
#   - nginx + lua-nginx-module under wrk: the handler under nginx's event
#     loop, 99% of samples unwinding to _start; our usual native chain from
#     main to ngx_http_lua_run_thread is perf record --call-graph dwarf's on
#     the same worker in the same window, and perf's chains are ours (SKIP
#     without perf).
source "$(dirname "$0")/lib.sh"

# The C hosts are built by tests/deps/setup-luajit.sh; nhost may be newer.
make -s -C "$TOP/tests/hosts" >/dev/null 2>&1

HZ=999
SECS=3
TOL=3
MIN_SAMPLES=1500
# Lua frames of nhost's script (chunk "=nhost"): update and on_hit by line.
UPDATE='nhost:14'
ON_HIT='nhost:8'

# folded_share FILE REGEX [NOT-REGEX]: percentage (integer, rounded) of the
# samples whose stack matches REGEX (and not NOT-REGEX).
folded_share() {
	awk -v re="$2" -v not="${3:-^$}" '
		{ n = $NF; t += n; s = $0; sub(/ [0-9]+$/, "", s)
		  if (s ~ re && s !~ not) h += n }
		END { if (t) printf "%d\n", h * 100 / t + 0.5 }' "$1"
}

# count_lines FILE REGEX: samples whose stack matches REGEX.
count_samples() {
	awk -v re="$2" '{ s = $0; sub(/ [0-9]+$/, "", s); if (s ~ re) h += $NF } END { print h + 0 }' "$1"
}

# truth_share FILE PART: the part's share of the host's time, percent.
truth_share() {
	sed -n 's/^truth //p' "$1" | tr ' ' '\n' | awk -F= -v p="$2" '
		$1 == "total" { t = $2 } $1 == p { v = $2 }
		END { if (t) printf "%d\n", v * 100 / t + 0.5 }'
}

check_part() {
	local name=$1 folded=$2 truth=$3 part=$4 re=$5 not=${6:-} got want
	got=$(folded_share "$folded" "$re" "$not")
	want=$(truth_share "$truth" "$part")
	margin "$name: $part" "$got" "$want" "$TOL"
	if near "$got" "$want" "$TOL"; then pass "$name: $part ${got}% (truth ${want}%)"
	else fail "$name: $part" "got '${got}'% want ${want}±$TOL%"; fi
}

# check_chain NAME FOLDED REGEX CHAIN: every sample matching REGEX has CHAIN.
check_chain() {
	local name=$1 folded=$2 re=$3 chain=$4 n off
	n=$(count_samples "$folded" "$re")
	off=$(awk -v re="$re" -v c="$chain" '{ s = $0; sub(/ [0-9]+$/, "", s)
		if (s ~ re && s !~ c) print }' "$folded")
	if [ "$n" -ge 100 ] && [ -z "$off" ]; then
		pass "$name (all $n)"
	else
		fail "$name" "$n samples, off: $(head -n 3 <<<"$off" | tr '\n' '|')"
	fi
}

nhost_run() {
	local b=$1 mode=$2 name="nhost-$1 $2" out=$TMP/nhost-$1-$2 n bad i
	local host=$TOP/.output/hosts/nhost-$b
	if [ ! -x "$host" ]; then fail "$name" "$host not built (make -C tests/hosts)"; return; fi
	start_bg "$host" 60 "$mode" >"$out.truth"
	local hp=$BGPID
	wait_for "$out.truth" '^ready' 5
	# Enough samples for a 3-point tolerance however loaded the machine
	# is: profiles of SECS until MIN_SAMPLES (at most 5; 1000 will do).
	: >"$out.folded"
	for ((i = 0; i < 5; i++)); do
		"$PROF" -p "$hp" -d "$SECS" -F "$HZ" --native -f folded -o "$out.part" 2>"$out.err"
		cat "$out.part" >>"$out.folded"
		[ "$(count_samples "$out.folded" '.')" -ge "$MIN_SAMPLES" ] && break
	done
	kill -TERM "$hp"; wait "$hp"
	n=$(count_samples "$out.folded" '.')
	if [ "$n" -lt 1000 ]; then
		fail "$name: samples" "only $n: $(cat "$out.err")"; return
	fi
	# Every one, including those taken while a callback is entered or
	# left (docs/native.md).
	check_chain "$name: physics_step samples have main;run_frame;lua_pcall;update;physics_step" \
		"$out.folded" 'physics_step' ";_start;(.*;)?main;run_frame;lua_pcall;$UPDATE;physics_step(;|$)"
	check_chain "$name: on_hit samples have main;...;update;physics_step;on_hit" \
		"$out.folded" "$ON_HIT" ";_start;(.*;)?main;run_frame;lua_pcall;$UPDATE;physics_step;$ON_HIT(;|$)"
	bad=$((n - $(count_samples "$out.folded" "^[^;]*;_start;")))
	check "$name: $((n - bad)) of $n samples unwind to _start" [ $((bad * 100)) -le "$n" ]
	check_part "$name" "$out.folded" "$out.truth" physics "physics_step" "$ON_HIT"
	check_part "$name" "$out.folded" "$out.truth" on_hit "$ON_HIT"
	check_part "$name" "$out.folded" "$out.truth" c_work ";work_c"
	check_part "$name" "$out.folded" "$out.truth" run_frame ";run_frame" "lua_pcall|lua_getfield|lua_pushinteger"
	check_part "$name" "$out.folded" "$out.truth" update "$UPDATE" "physics_step|work_c"
}

# libm_run LUAJIT-TREE MODE [coro]: ffi.C.cbrt from the Lua function
# spin_cbrt (in a coroutine resumed from Lua with coro).
libm_run() {
	local tree=$1 mode=$2 coro=${3:-} name="libm $1 $2 $3" out=$TMP/libm-$1-$2$3 n in_fn ok i
	local exe=$TOP/.deps/$tree/usr/bin/luajit chain=';main;.*;native_libm.lua:spin_cbrt;cbrt(;|$)'
	[ -n "$coro" ] && chain=';main;.*;coroutine.wrap_aux;.*;native_libm.lua:spin_cbrt;cbrt(;|$)'
	start_bg "$exe" $([ "$mode" = nojit ] && echo -joff) "$WL/native_libm.lua" 60 $coro
	local lp=$BGPID
	sleep 1
	# 2 s profiles until 200 samples (at most 4): a loaded machine can
	# leave the target a twentieth of a core (99 samples in one run).
	: >"$out.folded"
	for ((i = 0; i < 4; i++)); do
		"$PROF" -p "$lp" -d 2 -F "$HZ" --native -f folded -o "$out.part" 2>"$out.err"
		cat "$out.part" >>"$out.folded"
		[ "$(count_samples "$out.folded" '.')" -ge 200 ] && break
	done
	kill "$lp" 2>/dev/null; wait "$lp" 2>/dev/null
	n=$(count_samples "$out.folded" '.')
	in_fn=$(count_samples "$out.folded" ';cbrt(;|$)')
	ok=$(count_samples "$out.folded" "$chain")
	if [ "$n" -ge 200 ] && [ $((in_fn * 2)) -ge "$n" ] && [ $((ok * 100)) -ge $((in_fn * 99)) ]; then
		pass "$name: $in_fn of $n samples in cbrt, $ok under main;...;spin_cbrt"
	else
		fail "$name" "$in_fn of $n samples in cbrt, $ok under main;...;spin_cbrt: $(sort -t' ' -k2 -nr "$out.folded" | head -n 5 | tr '\n' '|')"
	fi
}

# outputs_run: the continuous agent's pprof has a Mapping with the build
# ID for native frames, the SVG draws them in their own colour.
outputs_run() {
	local out=$TMP/outputs host=$TOP/.output/hosts/nhost-deb map loc
	start_bg "$host" 60 jit >/dev/null
	local hp=$BGPID
	sleep 1
	# pprof from the continuous agent: what it ships has native frames.
	mkdir -m 700 "$out.dir"
	# Stopped once it has shipped an interval: a loaded machine can take
	# seconds to load the programs.
	"$PROF" -p "$hp" -F "$HZ" --native --continuous --every 2s --out-dir "$out.dir" \
		2>"$out.err" &
	local agent=$!
	for _ in $(seq 300); do
		compgen -G "$out.dir/*.pb.gz" >/dev/null && break
		sleep 0.1
	done
	kill -INT "$agent" 2>/dev/null; wait "$agent"
	"$PROF" -p "$hp" -d 2 -F "$HZ" --native -o "$out.svg" 2>>"$out.err"
	kill "$hp" 2>/dev/null; wait "$hp" 2>/dev/null
	go tool pprof -raw "$(ls "$out.dir"/*.pb.gz | head -n 1)" >"$out.raw" 2>&1
	map=$(sed -n 's|^ *\([0-9]*\): 0x[0-9a-f]*/0x[0-9a-f]*/0x[0-9a-f]* [^ ]*/nhost-deb [0-9a-f]\{40\} .*|\1|p' "$out.raw")
	loc=$(grep -cE "^ +[0-9]+: 0x[0-9a-f]+ M=$map physics_step " "$out.raw")
	if [ -n "$map" ] && [ "$loc" -ge 1 ]; then
		pass "pprof (--continuous): physics_step has a location in nhost-deb's mapping with its build ID"
	else
		fail "pprof: native mapping" "mapping '$map', locations '$loc': $(tr '\n' '|' <"$out.raw" | cut -c1-600)"
	fi
	# The lua_CFunction keeps its Lua-side name (work_c), its C symbol
	# (c_work) is the Function's system_name, printed in parentheses.
	if grep -qE "^ +[0-9]+: 0x[0-9a-f]+ M=$map work_c .*\(c_work\)" "$out.raw"; then
		pass "pprof: the Lua C function is work_c, with its C symbol c_work"
	else
		fail "pprof: Lua C function's C symbol" "$(grep -E 'work_c|c_work' "$out.raw" | head -n 3 | tr '\n' '|')"
	fi
	if grep -q 'native code (--native)' "$out.svg" &&
	   grep -A2 '<title>physics_step' "$out.svg" | grep -q 'fill="rgb(\(19[0-9]\|2[01][0-9]\|220\),1[0-3][0-9],1[45][0-9])'; then
		pass "svg: native frames in their own colour, in the legend"
	else
		fail "svg: native colour" "$(grep -A2 '<title>physics_step' "$out.svg" | head -n 3)"
	fi
}

# nginx_run: nginx + lua-nginx-module under wrk (as tests/t_nginx.sh); one
# worker profiled by luabpfprof --native and, over the same window, by
# perf record --call-graph dwarf, the reference for the native part:
#   - the handler's Lua frames sit under nginx's event loop and the Lua
#     module's C frames (main;...;ngx_process_events_and_timers;...;
#     ngx_http_lua_run_thread;...;handler.lua:work);
#   - at least 99% of our samples unwind to _start;
#   - the native chain from main to ngx_http_lua_run_thread that most of our
#     samples have is one perf finds too, frame for frame, and every chain
#     perf finds is one of ours.  perf's unwinding stops at the first frame
#     without CFI (JIT-compiled code, most of this handler's time): only the
#     samples it unwinds from ngx_http_lua_run_thread to main (those in C
#     called from Lua: ngx.say's output chain, os.clock) are compared, about
#     1 in 70; perf samples at 1999 Hz to have enough of them (some 80).
nginx_run() {
	local tree=$TOP/.deps/nginx out=$TMP/nginx-native n parse ok top topn w
	if [ ! -x "$tree/usr/sbin/nginx" ] || ! command -v wrk >/dev/null; then
		fail "nginx" "needs .deps/nginx (tests/deps/setup-nginx.sh) and wrk"; return
	fi
	RUN=$TMP/nginx
	source "$TOP/tests/nginx/lib.sh"
	if ! start_nginx; then fail "nginx" "did not start: $(tail -n 3 "$RUN/error.log")"; return; fi
	start_bg wrk -t2 -c16 -d60s "http://127.0.0.1:$PORT/work" >/dev/null
	local wrk=$BGPID
	w=${WORKERS[0]}
	sleep 1
	# luabpfprof first (it takes a while to load its BPF programs); perf
	# records 3 s of its 4 s window, once it samples.
	start_bg "$PROF" -v -p "$w" -d 4 -F "$HZ" --native -f folded -o "$out.folded" 2>"$out.err"
	local lbp=$BGPID
	wait_for "$out.err" 'sampling at' 20
	local perf=
	if command -v perf >/dev/null; then
		perf record -q -F 1999 --call-graph dwarf,16384 -p "$w" -o "$out.perf" \
			-- sleep 3 >/dev/null 2>&1 &
		perf=$!
	fi
	wait "$lbp"
	[ -n "$perf" ] && wait "$perf"
	kill "$wrk" "$MASTER" 2>/dev/null
	wait "$wrk" "$MASTER" 2>/dev/null
	n=$(count_samples "$out.folded" '.')
	parse=$(count_samples "$out.folded" 'handler.lua:parse$')
	ok=$(count_samples "$out.folded" ';main;.*;ngx_process_events_and_timers;.*;ngx_http_lua_run_thread;content_by_lua[^;]*;handler.lua:work;handler.lua:parse$')
	if [ "$parse" -ge 50 ] && [ "$ok" -eq "$parse" ]; then
		pass "nginx: $ok of $parse samples in parse under main;...;ngx_process_events_and_timers;...;ngx_http_lua_run_thread;...;handler.lua:work"
	else
		fail "nginx: handler under the event loop" "$ok of $parse: $(sort -t' ' -k2 -nr "$out.folded" | head -n 3 | tr '\n' '|')"
	fi
	ok=$(count_samples "$out.folded" '^nginx;_start;')
	if [ "$n" -ge 200 ] && [ $((ok * 100)) -ge $((n * 99)) ]; then
		pass "nginx: $ok of $n samples unwind to _start"
	else
		fail "nginx: unwind to _start" "$ok of $n samples: $(grep -v '^nginx;_start;' "$out.folded" | sort -t' ' -k2 -nr | head -n 2 | tr '\n' '|')"
	fi
	if [ -z "$perf" ]; then
		echo "SKIP: nginx: native chains as perf's: no perf (linux-perf, tests/deps/apt.variants)"
		return
	fi
	perf_chains "$out.perf" >"$out.perf.chains"
	our_chains "$out.folded" >"$out.our.chains"
	# Ours: the chain most samples have, and its share of the samples
	# that reach ngx_http_lua_run_thread.
	top=$(sort -k1,1nr "$out.our.chains" | head -n 1 | cut -d' ' -f2)
	topn=$(awk -v c="$top" '{ t += $1; if ($2 == c) h = $1 } END { printf "%d of %d", h, t }' "$out.our.chains")
	local pn pk
	pn=$(awk '{ t += $1 } END { print t + 0 }' "$out.perf.chains")
	pk=$(wc -l <"$out.perf.chains")
	if [ -n "$top" ] && awk -v c="$top" '$2 == c { f = 1 } END { exit !f }' "$out.perf.chains"; then
		pass "nginx: our main..ngx_http_lua_run_thread chain ($topn samples) is perf's too ($pn perf samples reach it, $pk chains)"
	else
		fail "nginx: our chain in perf's" "ours ($topn): $top; perf's: $(sort -k1,1nr "$out.perf.chains" | head -n 2 | tr '\n' '|')"
	fi
	ok=$(awk 'NR == FNR { c[$2] = 1; next } ($2 in c) { h += $1 } END { print h + 0 }' \
		"$out.our.chains" "$out.perf.chains")
	if [ "$pn" -ge 5 ] && [ "$ok" -eq "$pn" ]; then
		pass "nginx: each of perf's $pn samples from main to ngx_http_lua_run_thread ($pk chains) has one of our chains"
	else
		fail "nginx: perf's chains are ours" "$ok of $pn perf samples: perf $(sort -k1,1nr "$out.perf.chains" | head -n 3 | tr '\n' '|') ours $(head -n 3 "$out.our.chains" | tr '\n' '|')"
	fi
}

# perf_chains PERF.DATA: "COUNT CHAIN" for each distinct native chain, root
# first, from main up to ngx_http_lua_run_thread in perf's samples, frames
# perf does not name written as luabpfprof writes them (file+0xOFFSET).  A
# sample whose frames there include one outside any file (JIT-compiled
# code: perf's unwinding stops at it) is left out.
perf_chains() {
	perf script --no-inline -i "$1" -F ip,sym,dso 2>/dev/null | awk '
		function flush(   i, c, on) {
			c = ""; on = 0
			for (i = n; i >= 1; i--) {
				if (f[i] == "main") on = 1
				if (!on) continue
				if (f[i] == "") break
				c = c (c == "" ? "" : ";") f[i]
				if (f[i] == "ngx_http_lua_run_thread") { print c; break }
			}
			n = 0
		}
		/^$/ { flush(); next }
		NF >= 3 && $1 ~ /^[0-9a-f]+$/ {
			dso = $NF; gsub(/[()]/, "", dso)
			if (dso !~ /^\//) { f[++n] = ""; next }
			sub(/.*\//, "", dso)
			f[++n] = $2 == "[unknown]" ? sprintf("%s+0x%s", dso, $1) : $2
		}
		END { flush() }' | sort | uniq -c | awk '{ print $1, $2 }'
}

# our_chains FOLDED: the same from luabpfprof's folded stacks.
our_chains() {
	awk '{ w = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";"); c = ""; on = 0
		for (i = 1; i <= k; i++) {
			if (f[i] == "main") on = 1
			if (on) c = c (c == "" ? "" : ";") f[i]
			if (f[i] == "ngx_http_lua_run_thread") { if (on) n[c] += w; break }
		} }
		END { for (c in n) print n[c], c }' "$1"
}

# Bad combinations: one line naming the problem, exit 2, nothing loaded.
for bad in "-e alloc" "-e off-cpu" "--jit" "--heap"; do
	# shellcheck disable=SC2086
	err=$("$PROF" -p $$ -d 1 --native $bad 2>&1 >/dev/null); rc=$?
	if [ "$rc" -eq 2 ] && [ "$(wc -l <<<"$err")" -eq 1 ] && [[ $err == *"--native"* ]]; then
		pass "--native $bad refused: $err"
	else
		fail "--native $bad refused" "rc $rc: $err"
	fi
done

outputs_run
nginx_run
for b in deb or; do
	for mode in jit nojit; do
		nhost_run "$b" "$mode"
	done
done
for tree in luajit-deb luajit2; do
	for mode in jit nojit; do
		libm_run "$tree" "$mode"
	done
done
libm_run luajit-deb jit coro
