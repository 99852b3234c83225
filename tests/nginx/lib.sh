# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# nginx for the tests: Debian's nginx and lua-nginx-module on OpenResty's
# LuaJIT, extracted by tests/deps/setup-nginx.sh (never installed).
# Sourced after tests/lib.sh; the caller sets RUN (the nginx prefix).
TREE=$TOP/.deps/nginx
OR_LIB=$TOP/.deps/luajit2/usr/lib/$(gcc -dumpmachine 2>/dev/null || echo x86_64-linux-gnu)

# http_get PATH: the body of GET PATH on the test server (bash /dev/tcp).
http_get() {
	local fd line body=0
	exec {fd}<>"/dev/tcp/127.0.0.1/$PORT" || return 1
	printf 'GET %s HTTP/1.0\r\nHost: localhost\r\n\r\n' "$1" >&"$fd"
	while IFS= read -r line <&"$fd"; do
		line=${line%$'\r'}
		if [ "$body" = 1 ]; then echo "$line"; elif [ -z "$line" ]; then body=1; fi
	done
	exec {fd}>&-
}

# nginx_render_conf CONF DIR PORT: DIR/nginx.conf from tests/nginx/CONF,
# its placeholders filled in (run directory, OpenResty tree, Lua modules,
# port); an empty DIR/error.log beside it.
nginx_render_conf() {
	sed -e "s|@DIR@|$2|g; s|@TREE@|$TREE|g; s|@LUA@|$TOP/tests/nginx|g; s|@PORT@|$3|g" \
		"$TOP/tests/nginx/$1" > "$2/nginx.conf"
	: > "$2/error.log"
}

# start_nginx [CONF]: master + 2 workers on a free port, configured from
# tests/nginx/CONF (default nginx.conf.in), whose /truth?pid=0 answers;
# sets MASTER, WORKERS, PORT.
start_nginx() {
	local conf=${1:-nginx.conf.in} try
	mkdir -p "$RUN"
	for try in 1 2 3; do
		PORT=$((20000 + RANDOM % 20000))
		nginx_render_conf "$conf" "$RUN" "$PORT"
		start_bg env LD_LIBRARY_PATH="$OR_LIB" "$TREE/usr/sbin/nginx" -p "$RUN" \
			-c "$RUN/nginx.conf" -e "$RUN/error.log"
		MASTER=$BGPID
		for _ in $(seq 50); do
			WORKERS=($(pgrep -P "$MASTER"))
			[ ${#WORKERS[@]} -eq 2 ] && [ -n "$(http_get /truth?pid=0 2>/dev/null)" ] && return 0
			kill -0 "$MASTER" 2>/dev/null || break
			sleep 0.1
		done
		kill "$MASTER" 2>/dev/null
		wait "$MASTER" 2>/dev/null
		grep -q 'Address already in use' "$RUN/error.log" || break
	done
	return 1
}

# start_under_wrk NAME CONF SECONDS ARGS...: nginx from tests/nginx/CONF,
# then wrk for SECONDS with ARGS (its script, ...) on it, its output in
# $TMP/wrk.out; fails NAME's prerequisite and returns 1 when nginx or wrk
# is missing or nginx does not start.
start_under_wrk() {
	local name=$1 conf=$2 secs=$3
	shift 3
	if [ ! -x "$TREE/usr/sbin/nginx" ]; then
		fail "nginx present" "no $TREE (run tests/deps/setup-nginx.sh)"
		return 1
	fi
	if ! command -v wrk > /dev/null; then
		fail "wrk present" "install wrk (tests/deps/apt.test)"
		return 1
	fi
	if ! start_nginx "$conf"; then
		fail "$name starts" "$(tr '\n' '|' < "$RUN/error.log")"
		return 1
	fi
	start_bg wrk -d"${secs}s" "$@" "http://127.0.0.1:$PORT/" > "$TMP/wrk.out"
	sleep 1
}
