# SPDX-License-Identifier: MIT
# Shared helpers for the shell tests.  Each test prints "PASS: name" or
# "FAIL: name: why"; tests/run.sh counts those lines.
# shellcheck shell=bash

TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
PROF=${PROF:-$TOP/luabpfprof}
WL=$TOP/tests/workloads
TMP=${TMP:-$(mktemp -d /tmp/lbp-test.XXXXXX)}
# Debian's LuaJIT from the private .deps/luajit-deb tree, through a wrapper
# that sets LUA_PATH for its jit/*.lua (exec: same PID, comm "luajit");
# LUAJIT_EXE is the binary itself, what /proc/PID/exe shows.
LUAJIT=${LUAJIT:-$TOP/tests/bin/luajit}
LUAJIT_EXE=${LUAJIT_EXE:-$TOP/.deps/luajit-deb/usr/bin/luajit}
# The OTLP profiles schema the project keeps (tests/otlp/profiles.proto),
# the -I directory for protoc.
OTLP_SCHEMA=$TOP/tests/otlp
CHILDREN=()

pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1: $2"; }

# check NAME COND-COMMAND...: pass when the command succeeds.
check() {
	local name=$1; shift
	if "$@"; then pass "$name"; else fail "$name" "$*"; fi
}

# is_running PID: the process exists and has not died (a zombie has: it
# only waits for its parent, or for init once orphaned, to reap it).
is_running() {
	grep -qs '^State:[[:space:]]*[RSDT]' "/proc/$1/status"
}

# A child that ignores SIGTERM while its Lua code runs (Tarantool handles
# it in its event loop, which a busy loop never reaches) gets SIGKILL after
# 3 s, instead of holding the test until its workload ends.
cleanup_children() {
	local pid i
	for pid in "${CHILDREN[@]}"; do kill "$pid" 2>/dev/null; done
	for pid in "${CHILDREN[@]}"; do
		for ((i = 0; i < 30; i++)); do
			is_running "$pid" || break	# a zombie waits for the wait below
			sleep 0.1
		done
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	CHILDREN=()
}
trap cleanup_children EXIT

# Upstream LuaJIT sources that no package registry serves (the v2.0, v2.1
# and OpenResty heads, LuaJIT's bench collection) come from the directory
# $LBP_RUNTIMES names, and from nowhere else: without it a test skips the
# checks that need them with one line that says how to provide them.
# runtimes_file GLOB: the first file of $LBP_RUNTIMES matching GLOB.
runtimes_file() {
	local f
	[ -n "${LBP_RUNTIMES:-}" ] || return 1
	f=$(ls -- "$LBP_RUNTIMES"/$1 2>/dev/null | head -n1)
	[ -f "$f" ] && echo "$f"
}

# skip_runtimes NAME FILES: the one SKIP line for the checks that need
# FILES (globs, one string).
skip_runtimes() {
	local missing="LBP_RUNTIMES is unset"
	[ -n "${LBP_RUNTIMES:-}" ] && missing="no $2 in $LBP_RUNTIMES"
	echo "SKIP: $1: $missing; set LBP_RUNTIMES=DIR holding $2"
}

# runtimes_build: builds the heads of $LBP_RUNTIMES into $RUNTIMES_CACHE
# (tests/deps/setup-runtimes.sh: cached by the tarballs' sums, so the
# builds are of the tarballs there now); its log in $TMP/setup-runtimes.log.
RUNTIMES_CACHE=${LBP_CACHE:-/var/cache/luabpfprof}/runtimes
runtimes_build() {
	[ -n "${LBP_RUNTIMES:-}" ] || return 1
	"$TOP/tests/deps/setup-runtimes.sh" >"$TMP/setup-runtimes.log" 2>&1
}

# root_only_dir: a fresh directory for files the product must trust (the
# programs --label-from runs, as nobody: they must be readable), mode 0755
# under /run: root's, as every
# ancestor is, none writable by others, wherever the checkout is (a clone
# under /tmp lies below a directory anyone can write, which the product
# rightly refuses).  Prints it, or says why not on stderr and fails.  The
# caller removes it.
root_only_dir() {
	local d p
	d=$(mktemp -d /run/lbp-test.XXXXXX) || { echo "mktemp -d /run/lbp-test.XXXXXX failed" >&2; return 1; }
	chmod 755 "$d"
	p=$d
	while :; do
		if [ -L "$p" ] || [ ! -d "$p" ] || [ "$(stat -c %u "$p")" != 0 ] ||
		   [ $((0$(stat -c %a "$p") & 022)) -ne 0 ]; then
			echo "$p: not a directory of root's that no one else may write" >&2
			rm -rf "$d"
			return 1
		fi
		[ "$p" = / ] && break
		p=$(dirname "$p")
	done
	echo "$d"
}

# start_bg CMD...: starts a command in the background; sets BGPID.
# wait_lua PID: until PID runs LuaJIT, not the shell still forking it
# (-p refuses a process that maps no LuaJIT yet).
wait_lua() {
	local i
	for ((i = 0; i < 100; i++)); do
		# a LuaJIT executable (any build), or a host mapping libluajit
		if [[ "$(readlink "/proc/$1/exe" 2>/dev/null)" == *luajit* ]] ||
		   grep -qs libluajit "/proc/$1/maps"; then
			sleep 0.3
			return 0
		fi
		sleep 0.1
	done
	return 1
}

# build_ingest: the ingest test server (tests/ingest/) in $INGEST, built
# when missing or older than its source.
INGEST=$TOP/.output/ingest
build_ingest() {
	[ -x "$INGEST" ] && [ "$INGEST" -nt "$TOP/tests/ingest/main.go" ] && return 0
	(cd "$TOP" && GO111MODULE=off GOPATH=/usr/share/gocode GOFLAGS= \
		GOCACHE="$TOP/.output/gocache" go build -o "$INGEST" ./tests/ingest)
}

# start_ingest LOG PORT [FLAGS...]: the ingest test server on 127.0.0.1:PORT
# (0: a free one, tried until one is), once it listens; sets SRV (its pid)
# and SRV_PORT.
start_ingest() {
	local log=$1 port=$2 p i try; shift 2
	for try in $(seq 20); do
		p=$port
		[ "$port" = 0 ] && p=$((20000 + RANDOM % 30000))
		start_bg "$INGEST" -addr "127.0.0.1:$p" -log "$log" "$@" >"$log.out" 2>&1
		for i in $(seq 50); do
			if grep -q listening "$log.out" 2>/dev/null; then
				SRV=$BGPID SRV_PORT=$p
				return 0
			fi
			kill -0 "$BGPID" 2>/dev/null || break
			sleep 0.1
		done
		[ "$port" = 0 ] || return 1
	done
	return 1
}

# wait_for FILE PATTERN SECS: until FILE has a line matching PATTERN.
wait_for() {
	local i
	for i in $(seq $(($3 * 10))); do
		grep -q -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

start_bg() {
	"$@" &
	BGPID=$!
	CHILDREN+=("$BGPID")
}

# share FILE KEY: the percentage jit.p's text view printed for KEY at the
# top level (first match), or empty.
share() {
	awk -v k="$2" '
		/^ ?[0-9]+%  / {
			p = $0; sub(/^ */, "", p); sub(/%.*/, "", p)
			name = $0; sub(/^ ?[0-9]+%  /, "", name)
			if (name == k) { print p; exit }
		}' "$1"
}

# near GOT WANT TOL: |GOT - WANT| <= TOL (integers)
near() {
	[ -n "$1" ] || return 1
	local d=$(( $1 - $2 )); [ $d -lt 0 ] && d=$(( -d ))
	[ $d -le "$3" ]
}

# Flakes are bugs: every check of a measurement against a truth with a
# tolerance also logs how much of the tolerance it used, so that a check
# that runs close to it is seen before it fails:
#   MARGIN: <test>: <name>: got G truth T tol L used P%
# with P = |G - T| / L * 100 (over 100: failed).  tests/run.sh can list the
# closest.  <test> is the test file's name, or $MARGIN_TEST.
MARGIN_TEST=${MARGIN_TEST:-$(basename "$0" .sh)}

# margin NAME GOT TRUTH TOL: the MARGIN line (none when GOT is not a
# number: the check's FAIL line says what was missing).
margin() {
	awk -v t="$MARGIN_TEST" -v n="$1" -v g="$2" -v w="$3" -v l="$4" 'BEGIN {
		num = "^-?[0-9]+([.][0-9]+)?$"
		if (g !~ num || w !~ num || l !~ num) exit
		d = g - w; if (d < 0) d = -d
		used = l > 0 ? sprintf("%.0f", 100 * d / l) : (d > 0 ? "inf" : 0)
		printf "MARGIN: %s: %s: got %s truth %s tol %s used %s%%\n", t, n, g, w, l, used
	}'
}

# margin_rate NAME PART WHOLE LIMIT: the MARGIN line of a bound "PART is at
# most LIMIT% of WHOLE" (errors, losses): got PART's percentage, truth 0.
margin_rate() {
	[ -n "$2" ] && [ "${3:-0}" -gt 0 ] 2>/dev/null || return 0
	margin "$1" "$(awk -v p="$2" -v w="$3" 'BEGIN { printf "%.2f", 100 * p / w }')" 0 "$4"
}

# check_share NAME FILE KEY WANT TOL
check_share() {
	local got; got=$(share "$2" "$3")
	margin "$1" "$got" "$4" "$5"
	if near "$got" "$4" "$5"; then pass "$1 ($3=${got}%)"
	else fail "$1" "$3 got '${got}' want $4±$5; report: $(tr '\n' '|' < "$2")"; fi
}

# within NAME GOT WANT [TOL]: a share GOT (in %) within TOL (default
# $TOL) points of WANT.
within() {
	local tol=${4:-$TOL}
	margin "$1" "$2" "$3" "$tol"
	if awk -v g="$2" -v w="$3" -v t="$tol" 'BEGIN { d = g - w; exit !(g >= 0 && d <= t && -d <= t) }'
	then pass "$1 (got $2%, truth $3%)"
	else fail "$1" "got $2% want $3% ±$tol"; return 1; fi
}
