#!/bin/bash
# SPDX-License-Identifier: MIT
# -a, system-wide: three different kinds of LuaJIT process found and
# reported each with its own hot functions (Debian's luajit, a C host on
# OpenResty's libluajit, nginx + Lua); then churn: short-lived processes
# started during the run are all found (the VM-creation uprobe or the
# /proc rescan), reported, and forgotten once they exit.
# Other LuaJIT processes on the host (other tests) show up too: every
# check looks only at the sections of the processes started here.
source "$(dirname "$0")/lib.sh"
source "$TOP/tests/variants.sh"

NGINX_TREE=$TOP/.deps/nginx
OR_LIB=$TOP/.deps/luajit2/usr/lib/$(gcc -dumpmachine 2>/dev/null || echo x86_64-linux-gnu)

# section FILE PID: the jit.p report's section for PID (without its header).
section() {
	awk -v pid="$2" '
		/^=== PID [0-9]+ \(/ { on = ($3 == pid); next }
		on' "$1"
}

# check_section NAME FILE PID KEY WANT TOL: KEY's share in PID's section.
check_section() {
	section "$2" "$3" > "$TMP/section.$3"
	if [ ! -s "$TMP/section.$3" ]; then
		fail "$1" "no section for PID $3 in $(basename "$2")"
		return
	fi
	check_share "$1" "$TMP/section.$3" "$4" "$5" "$6"
}

# start_nginx DIR: nginx (master + 1 worker) whose worker spins in
# hot.lua:nginx_hot from a timer; sets NGINX_MASTER.  Returns 1 if the
# extracted nginx is missing.
start_nginx() {
	local dir=$1 port=$((20000 + RANDOM % 20000))
	[ -x "$NGINX_TREE/usr/sbin/nginx" ] || return 1
	mkdir -p "$dir/logs"
	cat > "$dir/hot.lua" <<-'EOF'
	local M = {}
	local function nginx_hot(n, x)
		for i = 1, n do x = (x * 1664525 + 1013904223) % 4294967296 end
		return x
	end
	function M.loop(premature)
		if premature then return end
		local x = 1
		while not ngx.worker.exiting() do
			x = nginx_hot(2000000, x)
			ngx.sleep(0.001)
		end
	end
	return M
	EOF
	cat > "$dir/nginx.conf" <<-EOF
	load_module $NGINX_TREE/usr/lib/nginx/modules/ndk_http_module.so;
	load_module $NGINX_TREE/usr/lib/nginx/modules/ngx_http_lua_module.so;
	user root;
	worker_processes 1;
	daemon off;
	pid $dir/nginx.pid;
	error_log $dir/logs/error.log warn;
	events { worker_connections 64; }
	http {
		access_log off;
		client_body_temp_path $dir/body; proxy_temp_path $dir/proxy;
		fastcgi_temp_path $dir/fcgi; uwsgi_temp_path $dir/uwsgi; scgi_temp_path $dir/scgi;
		lua_package_path "$dir/?.lua;$NGINX_TREE/usr/share/lua/5.1/?.lua;;";
		init_worker_by_lua_block { ngx.timer.at(0, require("hot").loop) }
		server { listen 127.0.0.1:$port; location / { return 200 "ok\n"; } }
	}
	EOF
	start_bg env LD_LIBRARY_PATH="$OR_LIB" "$NGINX_TREE/usr/sbin/nginx" -p "$dir" \
		-c "$dir/nginx.conf" -e "$dir/logs/error.log"
	NGINX_MASTER=$BGPID
}

# --- three kinds of LuaJIT process at once ----------------------------------------
start_bg variant_exec deb-bin "$WL/w631.lua" 60
deb_pid=$BGPID
start_bg variant_exec or-host "$WL/coro.lua" 60
or_pid=$BGPID
nginx_worker=
if start_nginx "$TMP/nginx"; then
	for _ in $(seq 50); do
		nginx_worker=$(pgrep -P "$NGINX_MASTER" | head -n1)
		[ -n "$nginx_worker" ] && break
		sleep 0.1
	done
fi
sleep 1.5	# into the steady state (traces compiled, nginx timer running)
"$PROF" -a -d 3 -F 499 --jp F >"$TMP/all.txt" 2>"$TMP/all.err" &
prof_text=$!
"$PROF" -a -d 3 -F 99 -f folded --per-process -o "$TMP/all.folded" 2>"$TMP/all.folded.err" &
prof_folded=$!
wait $prof_text; rc_text=$?
wait $prof_folded
check "-a: exits 0" [ "$rc_text" -eq 0 ]
check_section "-a: Debian luajit (w631) has its own section, a" "$TMP/all.txt" "$deb_pid" w631.lua:a 60 5
check_section "-a: Debian luajit (w631), b" "$TMP/all.txt" "$deb_pid" w631.lua:b 30 5
check_section "-a: C host on OpenResty's libluajit (coro), inside" "$TMP/all.txt" "$or_pid" coro.lua:inside 75 5
check_section "-a: C host on OpenResty's libluajit (coro), outside" "$TMP/all.txt" "$or_pid" coro.lua:outside 25 5
if [ -n "$nginx_worker" ]; then
	# nginx's master and worker are one program: one section, headed by
	# the master's PID when both have samples, else by the worker's
	# (docs/views.md).
	nginx_sec=$nginx_worker
	grep -q "^=== PID $NGINX_MASTER (nginx), [0-9]* processes ===" "$TMP/all.txt" &&
		nginx_sec=$NGINX_MASTER
	check_section "-a: nginx + Lua worker, hot.lua:nginx_hot" "$TMP/all.txt" "$nginx_sec" \
		hot.lua:nginx_hot 100 10
	check "-a: nginx is one section, headed with its comm" \
		test "$(grep -c '^=== PID [0-9]* (nginx)' "$TMP/all.txt")" -eq 1
else
	fail "-a: nginx + Lua worker" "nginx did not start (tests/deps/setup-nginx.sh; $TMP/nginx/logs)"
fi
check "-a: luabpfprof does not profile itself" \
	bash -c "! grep -q '(luabpfprof)' '$TMP/all.txt'"
check "-a folded --per-process: comm and pid are the root frames" \
	grep -q "^luajit;$deb_pid;.*w631.lua:a [0-9]*$" "$TMP/all.folded"
check "-a folded: the OpenResty host's stacks under lhost-or;PID" \
	grep -q "^lhost-or;$or_pid;.*coro.lua:inside [0-9]*$" "$TMP/all.folded"
cleanup_children

# --- churn: 10 short-lived processes during a 30 s run ------------------------------
"$PROF" -a -d 30 -F 199 --jp F -v >"$TMP/churn.txt" 2>"$TMP/churn.err" &
prof=$!
# Ready once the first scan is done and the probes are in place.
for _ in $(seq 100); do
	grep -q 'continuous\|-a: \|watching' "$TMP/churn.err" 2>/dev/null && break
	sleep 0.1
done
sleep 0.5
# The tests' LuaJIT is a private copy, not at a usual path: -a finds the
# first process running it by a rescan and then watches that file.  A
# first process makes it known, so that every churn process is probed.
"$LUAJIT" "$WL/duty.lua" 100 100 1.5 - exit &
warm=$!
for _ in $(seq 100); do
	grep -q "watching $(readlink -f "$LUAJIT_EXE")" "$TMP/churn.err" 2>/dev/null && break
	sleep 0.1
done
wait $warm
churn_pids=()
for k in $(seq 10); do
	# 2.5 s of wall time, half of it on the CPU, then exit.
	"$LUAJIT" "$WL/duty.lua" 100 100 2.5 - exit &
	churn_pids+=($!)
	sleep 2.4
done
wait "${churn_pids[@]}"
wait $prof
reported=0 burning=0 forgotten=0 probed=0
for pid in "${churn_pids[@]}"; do
	section "$TMP/churn.txt" "$pid" > "$TMP/churn.$pid"
	[ -s "$TMP/churn.$pid" ] && reported=$((reported + 1))
	grep -q ' duty.lua:burn$' "$TMP/churn.$pid" && burning=$((burning + 1))
	grep -q -- "-a: PID $pid (luajit) exited" "$TMP/churn.err" && forgotten=$((forgotten + 1))
	grep -q -- "-a: PID $pid created a VM" "$TMP/churn.err" && probed=$((probed + 1))
done
check "churn: all 10 short-lived processes reported (got $reported)" [ "$reported" -eq 10 ]
check "churn: each with its hot function duty.lua:burn (got $burning)" [ "$burning" -eq 10 ]
check "churn: each forgotten after it exited (got $forgotten)" [ "$forgotten" -eq 10 ]
check "churn: each seen creating its VM through the uprobe (got $probed)" [ "$probed" -eq 10 ]
cleanup_children
