#!/bin/bash
# SPDX-License-Identifier: MIT
# --group on a Kong-layout gateway under load: Debian's nginx + Lua, two
# workers, wrk on distinct paths (tests/nginx/gateway*.lua); plugins in
# the access phase, in content and in the header filter that runs inside
# content's first output call, none of them yields.  Truth: each plugin
# call's CPU time by the worker's own CPU clock, summed in a shared
# dict, read before and after the profile (--jp r: sample counts).  --group kong's shares of the
# plugins' samples must match the truth's shares of their CPU time within
# 3 points, or 4 standard errors when the run took too few samples for
# that (the tolerance is printed).
source "$(dirname "$0")/lib.sh"
source "$TOP/tests/nginx/lib.sh"
trap 'cleanup_children; [ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
RUN=$TMP/nginx

start_under_wrk gateway gateway.conf.in 20 -t2 -c8 -s "$TOP/tests/nginx/gateway_wrk.lua" || exit 0
http_get /truth > "$TMP/truth0"
"$PROF" -p "$(IFS=,; echo "${WORKERS[*]}")" -d 8 -F 999 --group kong --jp r > "$TMP/group.txt" 2> "$TMP/group.err"
http_get /truth > "$TMP/truth1"
python3 - "$TMP/truth0" "$TMP/truth1" "$TMP/group.txt" "$TMP/group.err" <<'PY'
import math, re, sys
t0, t1, text, err = (open(f).read() for f in sys.argv[1:5])
def sums(t):
    return {k: int(v) for k, v in re.findall(r"^(\S+) (\d+)$", t, re.M)}
a, b = sums(t0), sums(t1)
truth = {k: b[k] - a.get(k, 0) for k in b}
n = int(re.search(r"(\d+) samples in", err).group(1))
# --jp r: sample counts, not whole percents (the plugins are a third of
# the workers' samples: a rounded percent would be 1.5 points of theirs)
pct = {m.group(2): int(m.group(1)) for m in re.finditer(r"^\s*(\d+)  (\S+)$", text, re.M)}
plugins = ["rate-limiting", "jwt", "cors"]
inside = sum(pct.get(k, 0) for k in plugins)
tt = sum(truth.values())
if not inside or not tt:
    print("FAIL: gateway --group: no plugin samples or truth: %s %s" % (pct, truth))
    sys.exit(0)
m = inside
for k in plugins:
    want = 100 * truth[k] / tt
    got = 100 * pct.get(k, 0) / inside
    se = 100 * math.sqrt(want / 100 * (1 - want / 100) / m)
    tol = max(3, 4 * se)
    line = "%s %.1f%% of the plugins' samples, truth %.1f%% (+-%.1f; %d samples in plugins)" % (
        k, got, want, tol, m)
    print(("PASS: gateway --group kong: " if abs(got - want) <= tol else "FAIL: gateway --group kong: ") + line)
PY
