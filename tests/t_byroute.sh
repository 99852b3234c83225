#!/bin/bash
# SPDX-License-Identifier: MIT
# Request labels on every sample (bpf/reqlabel.bpf.h) and --by: Debian's
# nginx + Lua, two workers, wrk on distinct paths, two GETs of
# /api/users/ID (content) for one of /api/orders/ID (access, then
# content), every ID distinct, and a timer every 20 ms
# (tests/nginx/byroute*.lua).  Each handler spins in a function of its
# own, so a sample's frames say which route and phase it ran in.
#   - --by uri --uri-template auto: the labelled route and phase are
#     right for >= 99% of the samples inside requests (by their frames);
#     no request frame is labelled with another route, the timer's
#     samples are labelled (timer);
#   - cardinality: the thousands of distinct IDs fold to one key per
#     route; without --uri-template there is a key per ID;
#   - per route and per phase shares match the truth (each handler's CPU
#     time by the worker's own clock, summed in a shared dict) within 3
#     points, or 4 standard errors when the run took too few samples;
#   - -e wall and -e alloc label their samples the same way; pprof
#     carries url.path, http.request.method, nginx.phase, nginx.location.
source "$(dirname "$0")/lib.sh"
source "$TOP/tests/nginx/lib.sh"
trap 'cleanup_children; [ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
RUN=$TMP/nginx

start_under_wrk byroute byroute.conf.in 40 -t1 -c4 -s "$TOP/tests/nginx/byroute_wrk.lua" || exit 0
W=$(IFS=,; echo "${WORKERS[*]}")

http_get /truth > "$TMP/truth0"
"$PROF" -p "$W" -d 6 -F 999 --by uri --uri-template auto -f folded -o "$TMP/uri.folded" 2> "$TMP/uri.err"
http_get /truth > "$TMP/truth1"
"$PROF" -p "$W" -d 6 -F 999 --by phase -f folded -o "$TMP/phase.folded" 2> "$TMP/phase.err"
http_get /truth > "$TMP/truth2"
"$PROF" -p "$W" -d 2 -F 499 --by uri -f folded -o "$TMP/raw.folded" 2> "$TMP/raw.err"
"$PROF" -p "$W" -d 2 -F 499 --by method -f folded -o "$TMP/method.folded" 2> "$TMP/method.err"
"$PROF" -p "$W" -d 2 -F 499 --by uri --uri-template auto --jp F > "$TMP/uri_f.txt" 2> "$TMP/uri_f.err"
"$PROF" -p "$W" -d 2 -F 499 -e wall --by uri --uri-template auto -f folded -o "$TMP/wall.folded" \
	2> "$TMP/wall.err"
"$PROF" -p "$W" -d 3 -e alloc --by uri --uri-template auto -f folded -o "$TMP/alloc.folded" \
	2> "$TMP/alloc.err"
"$PROF" -p "$W" -d 2 -F 499 --uri-template auto -f pprof -o "$TMP/p.pb" 2> "$TMP/pprof.err"
python3 - "$TMP" <<'PY'
import gzip, math, re, sys
tmp = sys.argv[1]
rd = lambda f: open("%s/%s" % (tmp, f), "rb").read().decode("utf-8", "replace")
def sums(t):
    return {k: int(v) for k, v in re.findall(r"^(\S+) (\d+)$", t, re.M)}
t0, t1, t2 = (sums(rd("truth%d" % i)) for i in range(3))

def folded(name):
    out = []
    for line in rd(name).splitlines():
        stack, n = line.rsplit(" ", 1)
        m = re.search(r";\[group:([^\]]*)\]", stack)
        out.append((m.group(1) if m else None, stack, int(n)))
    return out

# The route, phase and method a stack's frames say it ran in.
def truth_of(stack):
    if "byroute.lua:orders_access" in stack:
        return "/api/orders/:id", "access", "GET"
    if "byroute.lua:orders" in stack:
        return "/api/orders/:id", "content", "GET"
    if "byroute.lua:users" in stack:
        return "/api/users/:id", "content", "GET"
    if "byroute.lua:timed" in stack:
        return "(timer)", "(timer)", "(timer)"
    return None, None, None

def check(ok, what):
    print(("PASS: " if ok else "FAIL: ") + what)

def correct(name, what, field=0):
    good = bad = 0
    for key, stack, n in folded(name):
        route = truth_of(stack)[field]
        if route is None:
            continue
        if key == route:
            good += n
        else:
            bad += n
            print("  %s: %s labelled %s: %s" % (what, route, key, stack[:160]))
    tot = good + bad
    check(tot >= 200 and good >= 0.99 * tot,
          "byroute %s: %d of %d (samples; wall: ns) in requests and timers labelled right (>= 99%%)"
          % (what, good, tot))

correct("uri.folded", "--by uri")
correct("wall.folded", "-e wall --by uri")
correct("alloc.folded", "-e alloc --by uri")
correct("phase.folded", "--by phase", 1)
correct("method.folded", "--by method", 2)

# Cardinality: one key per route however many IDs; one per ID without.
keys = {k for k, _, _ in folded("uri.folded") if k}
extra = keys - {"/api/users/:id", "/api/orders/:id", "(timer)", "(no request)"}
served = t1.get("requests", 0) - t0.get("requests", 0)
check(not extra and served >= 1000,
      "byroute --uri-template auto: %d distinct IDs served, keys %s" % (served, sorted(keys)))
raw = {k for k, _, _ in folded("raw.folded") if k and k.startswith("/api/")}
check(len(raw) >= 100, "byroute --by uri without templates: %d keys, one per ID" % len(raw))

def share_checks(what, got, truth):
    tot = sum(got.values())
    tt = sum(truth.values())
    if not tot or not tt:
        check(False, "byroute %s: samples %s truth %s" % (what, got, truth))
        return
    for k in sorted(truth):
        want = 100.0 * truth[k] / tt
        have = 100.0 * got.get(k, 0) / tot
        # binomial standard error of a share over tot samples
        se = 100 * math.sqrt(want / 100 * (1 - want / 100) / tot)
        tol = max(3, 4 * se)
        check(abs(have - want) <= tol, "byroute %s: %s %.1f%% of %d samples, truth %.1f%% (+-%.1f)"
              % (what, k, have, tot, want, tol))

# Per route: the folded run's samples against the truth over it.
got = {}
for key, stack, n in folded("uri.folded"):
    if key in ("/api/users/:id", "/api/orders/:id", "(timer)"):
        got[key] = got.get(key, 0) + n
truth = {k[6:]: t1[k] - t0.get(k, 0) for k in t1 if k.startswith("route:")}
share_checks("--by uri share", got, truth)

# Per phase.
got = {}
for key, stack, n in folded("phase.folded"):
    k = (key or "").strip("()")
    if k in ("content", "access", "timer"):
        got[k] = got.get(k, 0) + n
truth = {k[6:]: t2[k] - t1.get(k, 0) for k in t2 if k.startswith("phase:")}
share_checks("--by phase share", got, truth)

# jit.p's text with --jp F: each route, then its functions.
text = rd("uri_f.txt")
check(re.search(r"^\s*\d+%  /api/users/:id\n  -- +\d+%  byroute\.lua:spin$", text, re.M)
      is not None, "byroute --by uri --jp F: the route, then its functions: %r" % text[:200])

# pprof: the labels under their semantic-convention names.
pb = open(tmp + "/p.pb", "rb").read()
try:
    pb = gzip.decompress(pb)
except OSError:
    pass
for s in (b"url.path", b"http.request.method", b"nginx.phase", b"nginx.location",
          b"/api/users/:id", b"/api/orders/"):
    check(s in pb, "byroute pprof: label %s present" % s.decode())
PY
"$PROF" -p "$W" -d 1 --by nosuch > /dev/null 2> "$TMP/bad.err"
rc=$?
if [ "$rc" -ne 0 ] && [ "$(wc -l < "$TMP/bad.err")" -eq 1 ] && grep -q 'not a key' "$TMP/bad.err"; then
	pass "byroute --by nosuch: one line, exit $rc"
else
	fail "byroute --by nosuch: one line, nonzero exit" "exit $rc: $(head -c 300 "$TMP/bad.err")"
fi
