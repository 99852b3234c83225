#!/bin/bash
# SPDX-License-Identifier: MIT
# Safe as root (issue 13): what another local user, or a mistake, could
# turn against the host through luabpfprof's files, credentials, shutdown
# and set-up.  The attacker's part (planted spool files, symlinks, FIFOs)
# runs as a second, unprivileged user created here and removed at the end.
#  - spool, --out-dir, --log-file: directories not root's own or writable
#    by others are refused; symlinks are never followed; a spooled request
#    can never change the destination host or path
#  - credentials: user:pass@ in --push, CR/LF in --tenant, FIFO, directory
#    or oversized token files: one line, nonzero exit, never blocking
#  - long labels round-trip through the disk spool; two agents sharing a
#    spool never send or overwrite each other's files
#  - -o: no temporary left by SIGKILL or SIGHUP, stale ones removed, the
#    mode of a replaced file kept
#  - a backend that accepts and never answers: shutdown within 10 s; a
#    second SIGINT exits at once
#  - set-up never removes a package; the tests never use /usr/bin/luajit.
#    In CI (or with LBP_TEST_HOST_PACKAGES=1) it also installs
#    libnginx-mod-http-lua, when that removes nothing, and runs
#    `make deps demo` for real.
source "$(dirname "$0")/lib.sh"

EVIL=lbpsafe$$
PUB=$(mktemp -d /tmp/lbp-safety-pub.XXXXXX)
chmod 755 "$PUB"

finish() {
	cleanup_children
	userdel "$EVIL" 2>/dev/null
	rm -rf "$PUB"
}
trap finish EXIT

# free_port: a TCP port nothing listens on now.
free_port() {
	local p
	while :; do
		p=$((20000 + RANDOM % 30000))
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
	done
}

# start_server LOG PORT: the ingest server on PORT, once it listens; SRV.
start_server() {
	local i
	start_bg "$INGEST" -addr "127.0.0.1:$2" -log "$1" >"$1.out" 2>&1
	SRV=$BGPID
	for i in $(seq 100); do
		grep -q listening "$1.out" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# checkx NAME 'CONDITION': like check, for a condition of several commands
# (check's "$@" would take only the first of an && list).
checkx() {
	local name=$1
	if eval "$2"; then pass "$name"; else fail "$name" "$2"; fi
}

# as_evil CMD...: runs CMD as the unprivileged user.
as_evil() { setpriv --reuid="$EVIL" --regid="$EVIL" --clear-groups -- "$@"; }

# refused NAME PATTERN CMD...: CMD exits nonzero within 20 s with one line
# of stderr matching PATTERN.
refused() {
	local name=$1 pat=$2 rc lines; shift 2
	timeout 20 "$@" >"$TMP/out" 2>"$TMP/err"; rc=$?
	lines=$(grep -cv '^libbpf' "$TMP/err")
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$lines" -eq 1 ] && grep -q -- "$pat" "$TMP/err"; then
		pass "$name (exit $rc: $(cat "$TMP/err"))"
	else
		fail "$name" "exit $rc, want one line matching '$pat': $(tr '\n' '|' <"$TMP/err")"
	fi
}

if ! useradd --system --no-create-home --shell /usr/sbin/nologin "$EVIL"; then
	fail "test user created" "useradd $EVIL failed"
	exit 0
fi
if ! build_ingest >"$TMP/build.log" 2>&1; then
	fail "ingest server builds" "$(tr '\n' '|' <"$TMP/build.log")"
	exit 0
fi

start_bg "$LUAJIT" "$WL/w631.lua" 600
W=$BGPID
wait_lua "$W"
AGENT=("$PROF" --continuous -p "$W" -F 99 --every 1s)
mkdir -m 1777 "$PUB/sticky"
echo "s3cret-token" >"$TMP/token"
chmod 600 "$TMP/token"

# --- 1. the spool ------------------------------------------------------------------
P_GOOD=$(free_port)
start_server "$TMP/good.log" "$P_GOOD" || fail "server starts" "$(cat "$TMP/good.log.out")"
# The attacker's server records every request it gets, with its credentials.
P_EVIL=$(free_port)
: >"$TMP/evil.log"
start_bg python3 -c '
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        with open(sys.argv[2], "a") as f:
            f.write("%s %s %s\n" % (self.command, self.path, self.headers.get("Authorization")))
        self.send_response(200); self.end_headers()
    do_GET = do_PUT = do_POST
    def log_message(self, *a): pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
' "$P_EVIL" "$TMP/evil.log"
for i in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$P_EVIL") 2>/dev/null && break; sleep 0.1; done
mkdir -m 777 "$PUB/spool777"
as_evil sh -c "printf 'LBPSPOOL 1\n@127.0.0.1:$P_EVIL/steal?x=\napplication/octet-stream\n1\nx' >'$PUB/spool777/0000000000000001.req'"
refused "spool: a world-writable --spool-dir is refused" "writable by group or others" \
	"${AGENT[@]}" -d 2 --push "http://127.0.0.1:$P_GOOD" --auth-token-file "$TMP/token" \
	--spool-dir "$PUB/spool777"
check "spool: the planted request did not reach the other host ($(head -c 200 "$TMP/evil.log"))" \
	[ ! -s "$TMP/evil.log" ]
mkdir -m 700 "$PUB/spool_evil"
chown "$EVIL" "$PUB/spool_evil"
refused "spool: another user's --spool-dir is refused" "owned by uid" \
	"${AGENT[@]}" -d 2 --push "http://127.0.0.1:$P_GOOD" --spool-dir "$PUB/spool_evil"
# Even a file in root's own spool (an edited one) cannot redirect.
mkdir -m 700 "$TMP/spool"
printf 'LBPSPOOL 2\nto ingest http://127.0.0.1:%s tenant=\n@127.0.0.1:%s/steal?x=\napplication/octet-stream\n1\nx' \
	"$P_GOOD" "$P_EVIL" >"$TMP/spool/0000000000000001.req"
timeout 30 "${AGENT[@]}" -d 3 --push "http://127.0.0.1:$P_GOOD" --auth-token-file "$TMP/token" \
	--spool-dir "$TMP/spool" 2>"$TMP/spool.err"
check "spool: a request path naming another host is dropped, not sent" \
	grep -q "unreadable or unsafe; dropped" "$TMP/spool.err"
sleep 0.5
check "spool: the other host received nothing" [ ! -s "$TMP/evil.log" ]
check "spool: the agent's own profiles still went to its --push URL" \
	[ "$(grep -c '^ok' "$TMP/good.log")" -ge 2 ]

# --- 1b. the spool is keyed by backend and tenant ------------------------------------
# Agent A spools for a backend that is down (tenant team-a); agent B, on the
# same --spool-dir, pushes to another backend as team-b: none of A's requests
# may reach B's backend under B's tenant and credentials.  A's next agent
# delivers them to A's backend once it is up.
P_DOWN=$(free_port)
mkdir -m 700 "$TMP/spool_x"
timeout 30 "${AGENT[@]}" -d 3 --push "http://127.0.0.1:$P_DOWN" --tenant team-a --service xa \
	--spool-dir "$TMP/spool_x" 2>"$TMP/xa.err"
na=$(ls "$TMP/spool_x" | grep -c '\.req$')
check "spool across backends: A spooled its intervals while its backend was down ($na files)" [ "$na" -ge 2 ]
: >"$TMP/good.log"
timeout 30 "${AGENT[@]}" -d 3 --push "http://127.0.0.1:$P_GOOD" --tenant team-b --auth-token-file "$TMP/token" \
	--service xb --spool-dir "$TMP/spool_x" 2>"$TMP/xb.err"
sleep 0.5
checkx "spool across backends: B's backend got B's profiles only, none of A's ($(grep -c $'^ok' "$TMP/good.log") requests)" \
	'[ "$(grep -c $'"'"'^ok\t.*service=xb\t.*tenant=team-b\t'"'"' "$TMP/good.log")" -ge 2 ] && ! grep -q "service=xa\|tenant=team-a" "$TMP/good.log"'
check "spool across backends: B says it left A's for A" grep -q "spooled for another backend or tenant are left for it" "$TMP/xb.err"
check "spool across backends: A's files are still there ($(ls "$TMP/spool_x" | grep -c '\.req$'))" \
	[ "$(ls "$TMP/spool_x" | grep -c '\.req$')" -eq "$na" ]
start_server "$TMP/down.log" "$P_DOWN" || fail "A's server starts" "$(cat "$TMP/down.log.out")"
XSRV=$SRV
timeout 30 "${AGENT[@]}" -d 2 --push "http://127.0.0.1:$P_DOWN" --tenant team-a --service xa \
	--spool-dir "$TMP/spool_x" 2>"$TMP/xa2.err"
sleep 0.5
nx=$(grep -c $'^ok\t.*service=xa\t.*tenant=team-a\t' "$TMP/down.log")
check "spool across backends: A's next agent delivered A's spooled profiles to A ($nx, want >= $na + 1)" \
	[ "$nx" -ge $((na + 1)) ]
kill "$XSRV" 2>/dev/null

# --- 2, 3. --log-file and --out-dir symlinks ---------------------------------------
mkdir -m 755 "$TMP/victim"
touch "$TMP/victim/20240101T000000.000Z-a.pb.gz" "$TMP/victim/20240101T000001.000Z-b.pb.gz"
as_evil ln -s "$TMP/victim/owned.log" "$PUB/sticky/agent.log"
refused "--log-file in a directory others can write is refused" "writable by group or others" \
	"${AGENT[@]}" -d 1 --out-dir "$TMP/o1" --log-file "$PUB/sticky/agent.log"
check "--log-file: the link's target was not created" [ ! -e "$TMP/victim/owned.log" ]
mkdir -m 755 "$TMP/logs"
ln -s "$TMP/victim/owned.log" "$TMP/logs/agent.log"
"${AGENT[@]}" -d 1 --out-dir "$TMP/o1" --log-file "$TMP/logs/agent.log" 2>"$TMP/log.err"
rc=$?
checkx "--log-file: a symlink is never followed (exit $rc: $(head -1 "$TMP/log.err"))" \
	'[ "$rc" -ne 0 ] && grep -q "symbolic link" "$TMP/log.err" && [ ! -e "$TMP/victim/owned.log" ]'
as_evil ln -s "$TMP/victim" "$PUB/sticky/out"
refused "--out-dir: another user's symlink is refused" "symbolic link" \
	"${AGENT[@]}" -d 2 --out-dir "$PUB/sticky/out" --retain-count 1
ln -s "$TMP/victim" "$TMP/outlink"
refused "--out-dir: any symlink is refused (the real directory must be given)" "symbolic link" \
	"${AGENT[@]}" -d 2 --out-dir "$TMP/outlink" --retain-count 1
check "--out-dir: retention deleted nothing in the link's target" \
	[ "$(ls "$TMP/victim" | grep -c 'pb.gz$')" -eq 2 ]

# --- 4. credentials -----------------------------------------------------------------
PUSH=(--push "http://127.0.0.1:$P_GOOD")
refused "credentials: user:password in --push is refused" "--basic-auth-file" \
	"${AGENT[@]}" -d 1 --push "http://user:hunter2@127.0.0.1:$P_GOOD/"
check "credentials: the password is not printed" [ "$(grep -c hunter2 "$TMP/err")" -eq 0 ]
refused "credentials: CR LF in --tenant is refused" "tenant" \
	"${AGENT[@]}" -d 1 "${PUSH[@]}" --tenant $'t\r\nX-Injected: yes'
as_evil mkfifo "$PUB/sticky/fifo"
refused "credentials: a FIFO token file is refused at once" "not a regular file" \
	"${AGENT[@]}" -d 1 "${PUSH[@]}" --auth-token-file "$PUB/sticky/fifo"
mkdir "$TMP/tokdir"
refused "credentials: a directory is not a regular file" "a directory, not a regular file" \
	"${AGENT[@]}" -d 1 "${PUSH[@]}" --auth-token-file "$TMP/tokdir"
head -c 5000 /dev/zero | tr '\0' 'x' >"$TMP/bigtoken"
refused "credentials: a token over 4095 bytes is refused, not cut" "longer than 4095" \
	"${AGENT[@]}" -d 1 "${PUSH[@]}" --auth-token-file "$TMP/bigtoken"
as_evil ln -s "$TMP/token" "$PUB/sticky/token"
refused "credentials: another user's symlink to root's token is refused" "symbolic link" \
	"${AGENT[@]}" -d 1 "${PUSH[@]}" --auth-token-file "$PUB/sticky/token"

# --- 5. long labels through the disk spool ----------------------------------------------
long=$(head -c 1100 /dev/zero | tr '\0' 'v')
labels=()
for i in $(seq 32); do labels+=(--label "k$i=$long"); done
: >"$TMP/good.log"
timeout 40 "${AGENT[@]}" -d 4 "${PUSH[@]}" --service longlabels "${labels[@]}" \
	--spool-dir "$TMP/spool_long" 2>"$TMP/long.err"
n=$(grep -c $'^ok\t.*service=longlabels' "$TMP/good.log")
checkx "long labels: 32 x 1100-byte labels round-trip the spool ($n delivered; $(tail -1 "$TMP/long.err"))" \
	'[ "$n" -ge 3 ] && grep -q "[1-9][0-9]* delivered, 0 refused, 0 dropped" "$TMP/long.err"'

# --- 6. two agents, one spool directory -------------------------------------------------
P_LATE=$(free_port)
mkdir -m 700 "$TMP/shared"
"${AGENT[@]}" -d 8 --push "http://127.0.0.1:$P_LATE" --service two-a --spool-dir "$TMP/shared" \
	2>"$TMP/two-a.err" &
TA=$!
"${AGENT[@]}" -d 8 --push "http://127.0.0.1:$P_LATE" --service two-b --spool-dir "$TMP/shared" \
	2>"$TMP/two-b.err" &
TB=$!
for i in $(seq 300); do
	grep -q "continuous:" "$TMP/two-a.err" && grep -q "continuous:" "$TMP/two-b.err" && break
	sleep 0.1
done
sleep 3.5	# both spool three intervals while the backend is down
n=$(ls "$TMP/shared" | grep -c '\.req$')
check "shared spool: each agent's requests are files of their own, none overwritten ($n files)" [ "$n" -ge 6 ]
start_server "$TMP/late.log" "$P_LATE" || fail "late server starts" "$(cat "$TMP/late.log.out")"
wait "$TA" "$TB"
sleep 0.5
for s in a b; do
	sent=$(grep -o '[0-9]* delivered' "$TMP/two-$s.err" | grep -o '^[0-9]*')
	got=$(grep -c $'^ok\t.*service=two-'"$s"$'\t' "$TMP/late.log")
	checkx "shared spool: agent $s's deliveries all reached the server once ($sent delivered, $got received)" \
		'[ -n "$sent" ] && [ "$sent" -ge 6 ] && [ "$got" -eq "$sent" ]'
done
# An interval is its agent and its profile's start in ns: "from" has whole
# seconds, and an interval cut short (the last one, or a late timer on a
# loaded machine) can share its second with the one before.
dups=$(awk -F'\t' '$1 == "ok" { k = ""; for (i = 2; i <= NF; i++) if ($i ~ /^(service|time)=/) k = k $i; print k }' \
	"$TMP/late.log" | sort | uniq -d | wc -l)
check "shared spool: no interval was sent twice ($dups duplicates)" [ "$dups" -eq 0 ]
check "shared spool: nothing left behind" [ "$(ls "$TMP/shared" | grep -c '\.req$')" -eq 0 ]

# --- 9, 10. -o: temporaries and modes -------------------------------------------------
mkdir "$TMP/o"
"$PROF" -p "$W" -d 30 -o "$TMP/o/kill.txt" 2>/dev/null &
K=$!
sleep 2
kill -KILL "$K"; wait "$K" 2>/dev/null
check "-o: SIGKILL leaves no temporary file ($(ls -A "$TMP/o" | tr '\n' ' '))" [ -z "$(ls -A "$TMP/o")" ]
# Default SIGHUP even under nohup (which would make it ignored).
env --default-signal=HUP "$PROF" -p "$W" -d 30 -o "$TMP/o/hup.txt" 2>/dev/null &
K=$!
sleep 2
kill -HUP "$K"; wait "$K" 2>/dev/null
# SIGHUP ends a one-shot run with its report (t_session): the report, and
# nothing else, is left.
check "-o: SIGHUP leaves the report and no temporary file ($(ls -A "$TMP/o" | tr '\n' ' '))" \
	[ "$(ls -A "$TMP/o")" = hup.txt ]
touch "$TMP/o/.luabpfprof.999999999-5.x1"
echo old >"$TMP/o/r.txt"
chmod 600 "$TMP/o/r.txt"
"$PROF" -p "$W" -d 1 -o "$TMP/o/r.txt" 2>"$TMP/o.err"
check "-o: a dead run's named temporary is removed by the next run" \
	[ ! -e "$TMP/o/.luabpfprof.999999999-5.x1" ]
check "-o: the report replaced the file" grep -Eq '^ *[0-9]+%  a$' "$TMP/o/r.txt"
check "-o: over a 0600 file keeps 0600 ($(stat -c %a "$TMP/o/r.txt"))" \
	[ "$(stat -c %a "$TMP/o/r.txt")" = 600 ]

# --- 12. a backend that accepts and never answers ------------------------------------------
P_HUNG=$(free_port)
start_bg python3 -c '
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(16)
conns = []
while True:
    c, _ = s.accept(); conns.append(c)
' "$P_HUNG"
sleep 0.5
"${AGENT[@]}" --push "http://127.0.0.1:$P_HUNG" 2>"$TMP/hung.err" &
H=$!
wait_for "$TMP/hung.err" "continuous:" 20	# BPF loaded: slow on a loaded host
sleep 3
t0=$(date +%s%N)
kill -INT "$H"; wait "$H"; rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
checkx "hung backend: SIGINT ends the agent within 10 s ($ms ms, exit $rc)" '[ "$ms" -le 10000 ] && [ "$rc" -eq 0 ]'
check "hung backend: the request in flight was aborted" grep -q "aborted at shutdown" "$TMP/hung.err"
"${AGENT[@]}" --push "http://127.0.0.1:$P_HUNG" 2>"$TMP/hung2.err" &
H=$!
wait_for "$TMP/hung2.err" "continuous:" 20
sleep 3
kill -INT "$H"
sleep 1
t0=$(date +%s%N)
kill -INT "$H"; wait "$H"; rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
checkx "hung backend: a second SIGINT exits at once ($ms ms, exit $rc)" '[ "$ms" -le 1000 ] && [ "$rc" -eq 130 ]'

# --- 13. the host's packages ---------------------------------------------------------------
bad=$(grep -hv '^#' "$TOP"/tests/deps/apt.* | grep -E '^(luajit|luajit2|libluajit|nginx|libnginx|lua-resty)' | tr '\n' ' ')
check "set-up lists install no LuaJIT or nginx package (${bad:-none})" [ -z "$bad" ]
pkgs=$(grep -hv '^#' "$TOP"/tests/deps/apt.* | sort -u)
# shellcheck disable=SC2086
sim=$(apt-get -s install --no-install-recommends libnginx-mod-http-lua $pkgs 2>&1)
removed=$(awk '/^Remv / {print $2}' <<<"$sim" | grep -xF -f <(printf '%s\nlibnginx-mod-http-lua\n' $pkgs) | tr '\n' ' ')
checkx "set-up packages and nginx's Lua module install side by side (apt-get -s; removed of ours: ${removed:-none})" \
	'[ -z "$removed" ] && grep -Eq "^Inst libnginx-mod-http-lua|^libnginx-mod-http-lua is already" <<<"$sim"'
echo libnginx-mod-http-lua >"$TMP/conflict.list"
if dpkg-query -W -f='${Status}' luajit 2>/dev/null | grep -q 'install ok installed'; then
	LBP_APT_LISTS="$TMP/conflict.list" LBP_DEPS_DRY_RUN=1 "$TOP/tests/install-deps.sh" core \
		>"$TMP/deps.out" 2>&1
	rc=$?
	checkx "install-deps refuses what would remove a package (exit $rc: $(tail -1 "$TMP/deps.out"))" \
		'[ "$rc" -ne 0 ] && grep -q "would remove luajit" "$TMP/deps.out" &&
		grep -q "will install these Debian packages: libnginx-mod-http-lua" "$TMP/deps.out"'
fi
uses=$(grep -HnE '(^|[^])}$[:alnum:]_./])/usr/bin/luajit' "$TOP"/tests/lib.sh "$TOP"/tests/variants.sh \
	"$TOP"/tests/t_*.sh | grep -v '^[^:]*:[0-9]*:[[:space:]]*#' | grep -v t_safety.sh | tr '\n' ' ')
check "no test runs /usr/bin/luajit (${uses:-none})" [ -z "$uses" ]
checkx "\$LUAJIT runs the private .deps/luajit-deb build ($(readlink "/proc/$W/exe"))" \
	'[ "$(readlink "/proc/$W/exe")" = "$(readlink -f "$LUAJIT_EXE")" ] &&
	[ "$(cat "/proc/$W/comm")" = luajit ]'
check "\$LUAJIT finds its own jit/*.lua" "$LUAJIT" -e 'assert(require("jit.p"))'
# CI (and LBP_TEST_HOST_PACKAGES=1) installs nginx's Lua module first, as
# a user's host has it, unless that would remove a package the machine has.
removes=
if [ "${CI:-}" = true ] || [ "${LBP_TEST_HOST_PACKAGES:-}" = 1 ]; then
	removes=$(apt-get -s install libnginx-mod-http-lua 2>/dev/null | sed -n 's/^Remv \([^ ]*\).*/\1/p' | paste -sd' ' -)
	[ -n "$removes" ] && echo "info: not installing libnginx-mod-http-lua: it would remove $removes"
fi
if { [ "${CI:-}" = true ] || [ "${LBP_TEST_HOST_PACKAGES:-}" = 1 ]; } && [ -z "$removes" ]; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-remove libnginx-mod-http-lua \
		>"$TMP/nginx.out" 2>&1
	(cd "$TOP" && make deps && timeout 120 make demo) >"$TMP/demo.out" 2>&1
	rc=$?
	check "make deps demo with nginx's Lua module installed: it works (exit $rc)" [ "$rc" -eq 0 ]
	check "make deps demo leaves libnginx-mod-http-lua installed" \
		sh -c "dpkg-query -W -f='\${Status}' libnginx-mod-http-lua | grep -q 'install ok installed'"
fi

cleanup_children
