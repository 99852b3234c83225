#!/bin/bash
# SPDX-License-Identifier: MIT
# --group: samples keyed by the outermost frame whose chunk path matches.
#   - a Kong-layout run loop (tests/workloads/gateway/kong_runloop.lua)
#     spends CPU in shares 50 : 30 : 20 in kong/plugins/{rate-limiting,
#     jwt, cors}, jwt's inside cors/util.lua (it must count for jwt, the
#     outermost); --group kong gives "NN%  rate-limiting" lines within
#     tolerance, --jp F the split (each plugin, then its functions),
#     folded stacks rooted at [group:NAME], the SVG its group frames in
#     the group colour, pprof a group label per sample;
#   - the agent (--continuous): each interval's pprof has the label;
#   - an APISIX layout (apisix/plugins/NAME.lua, phase methods), 60 : 40,
#     --group apisix;
#   - a bad pattern: one line, exit 2.
source "$(dirname "$0")/lib.sh"
trap 'cleanup_children; [ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT

GW=$WL/gateway
SECS=3
HZ=999

# start NAME SCRIPT: the run loop under Debian's LuaJIT, its modules found
# under tests/workloads/gateway; sets PID.
start() {
	LUA_PATH="$GW/?.lua;;" start_bg "$LUAJIT" "$GW/$2" 30 > "$TMP/$1.out"
	PID=$BGPID
	for _ in $(seq 50); do grep -q ready "$TMP/$1.out" && return 0; sleep 0.1; done
	return 1
}

# shares FILE NAME=PCT...: each key's share of the text view within 4
# standard errors of a binomial share over the samples the run took
# (n from the summary line), plus one point for the loop outside the
# plugins and the rounding to whole percents.
shares() {
	local f=$1; shift
	python3 - "$f" "$TMP/$(basename "$f" .txt).err" "$@" <<'PY'
import math, re, sys
text, err, want = open(sys.argv[1]).read(), open(sys.argv[2]).read(), sys.argv[3:]
n = int(re.search(r"(\d+) samples in", err).group(1))
got = {m.group(2): int(m.group(1)) for m in re.finditer(r"^\s*(\d+)%  (\S+)$", text, re.M)}
bad = []
for w in want:
    k, p = w.split("=")
    p = int(p)
    tol = 4 * 100 * math.sqrt(p / 100 * (1 - p / 100) / n) + 1
    if k not in got or abs(got[k] - p) > tol:
        bad.append("%s %s%% want %d%%+-%.1f" % (k, got.get(k), p, tol))
print("n=%d %s" % (n, "; ".join(bad) if bad else " ".join("%s=%d%%" % (k, v) for k, v in got.items())))
sys.exit(1 if bad else 0)
PY
}

profile() {
	local label=$1; shift
	"$PROF" -p "$PID" -d "$SECS" -F "$HZ" "$@" > "$TMP/$label.txt" 2> "$TMP/$label.err"
}

if ! start kong kong_runloop.lua; then
	fail "kong run loop starts" "$(cat "$TMP/kong.out")"
	exit 0
fi
profile kong --group kong
if r=$(shares "$TMP/kong.txt" rate-limiting=50 jwt=30 cors=20); then
	pass "--group kong: per-plugin shares 50/30/20, jwt's time in cors/util.lua counts for jwt ($r)"
else
	fail "--group kong shares" "$r: $(tr '\n' '|' < "$TMP/kong.txt")"
fi
profile kong.F --group kong --jp F
if awk '/^[0-9]+%  jwt$/ { j = 1; next } /^[0-9]+%/ { j = 0 } j && /-- +[0-9]+%  busy.lua:spin/ { ok = 1 } END { exit !ok }' "$TMP/kong.F.txt"; then
	pass "--group kong --jp F: each plugin, then its functions"
else
	fail "--group kong --jp F" "$(tr '\n' '|' < "$TMP/kong.F.txt")"
fi
profile kong.folded --group kong -f folded
if grep -q '^[^ ]*\[group:jwt\];.*busy.lua:spin [0-9]*$' "$TMP/kong.folded.txt" &&
   ! grep -v '\[group:' "$TMP/kong.folded.txt" | grep -q .; then
	pass "--group kong -f folded: every stack rooted at its [group:NAME]"
else
	fail "--group kong folded" "$(head -5 "$TMP/kong.folded.txt" | tr '\n' '|')"
fi
profile kong.svg --group kong -f svg
if grep -q 'group:rate-limiting' "$TMP/kong.svg.txt" && grep -q 'rgb(120,200,170)' "$TMP/kong.svg.txt"; then
	pass "--group kong -f svg: group frames in the group colour"
else
	fail "--group kong svg" "no group frame or colour"
fi
profile kong.pprof --group kong -f pprof -o "$TMP/kong.pb.gz"
if gzip -dc "$TMP/kong.pb.gz" | grep -aq 'rate-limiting' && gzip -dc "$TMP/kong.pb.gz" | grep -aq 'group'; then
	pass "--group kong -f pprof: the group label and its values"
else
	fail "--group kong pprof" "no group label in $(gzip -dc "$TMP/kong.pb.gz" | strings | head -20 | tr '\n' ' ')"
fi
# The agent: each interval's pprof carries the group label too.
mkdir -p "$TMP/agent"
timeout -s INT 8 "$PROF" -p "$PID" --continuous --every 2 -F "$HZ" --out-dir "$TMP/agent" \
	--group kong > "$TMP/agent.out" 2>&1
n=0
for f in "$TMP"/agent/*.pb.gz; do
	[ -f "$f" ] && gzip -dc "$f" | grep -aq 'rate-limiting' && gzip -dc "$f" | grep -aq 'group' && n=$((n + 1))
done
if [ "$n" -ge 1 ]; then
	pass "--continuous --group kong: $n interval profiles carry the group label"
else
	fail "--continuous --group kong" "no profile with the label: $(ls "$TMP/agent") $(tail -3 "$TMP/agent.out")"
fi
kill "$PID"

if start apisix apisix_runloop.lua; then
	profile apisix --group apisix
	if r=$(shares "$TMP/apisix.txt" limit-count=60 key-auth=40); then
		pass "--group apisix: per-plugin shares 60/40 ($r)"
	else
		fail "--group apisix shares" "$r: $(tr '\n' '|' < "$TMP/apisix.txt")"
	fi
	kill "$PID"
else
	fail "apisix run loop starts" "$(cat "$TMP/apisix.out")"
fi

"$PROF" -p 1 --group 'kong/(' > /dev/null 2> "$TMP/bad.err"
rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l < "$TMP/bad.err")" = 1 ]; then
	pass "--group with a bad pattern: one line, exit 2 ($(cat "$TMP/bad.err"))"
else
	fail "--group bad pattern" "exit $rc: $(cat "$TMP/bad.err")"
fi
