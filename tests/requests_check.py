#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks tests/t_requests.sh's dumps of nginx workers: the requests each
coroutine serves (user/nginx/), against what the test sent.

requests_check.py NAME DUMP.json QUERY.json N GAP_MS T0 T1 SENT_1..SENT_N
(times in ms since the epoch; T0, T1: the dump's start and end)."""
import json
import sys


def threads(path):
    for vm in json.load(open(path))["vms"]:
        for t in vm["threads"]:
            yield vm["pid"], t


def report(name, ok, what, why):
    print(("PASS: %s: %s" % (name, what)) if ok else ("FAIL: %s: %s: %s" % (name, what, why)))


def main():
    name, dump, query = sys.argv[1:4]
    n, gap, t0, t1 = (int(x) for x in sys.argv[4:8])
    sent = [int(x) for x in sys.argv[8:8 + n]]
    ts = list(threads(dump))
    want = "non-GC64" if name == "nogc64" else "GC64"
    lays = {vm["luajit"] for vm in json.load(open(dump))["vms"]}
    report(name, all(lay.endswith(" " + want) for lay in lays), "the workers run OpenResty's "
           "LuaJIT " + want, lays)
    reqs = [(pid, t) for pid, t in ts if t.get("request")]
    by_uri = {}
    for pid, t in reqs:
        q = t["request"]
        if q["kind"] == "request":
            by_uri.setdefault(q["uri"], []).append((pid, t))

    items = ["/content/item/%d" % (i + 1) for i in range(n)]
    found = [u for u in items if len(by_uri.get(u, [])) == 1]
    bad = [(u, q) for u in found for q in [by_uri[u][0][1]["request"]]
           if (q["method"], q["phase"], q["location"], q["server"], q["host"]) !=
           ("GET", "content", "/content/", "requests.test", "requests.test")]
    report(name, len(found) == n and not bad,
           "%d content requests listed once each with GET, content, /content/, requests.test" % n,
           "found %d of %d, wrong: %s" % (len(found), n, bad[:2]))

    leak = [q["uri"] for _, t in reqs for q in [t["request"]] if q["uri"] and "?" in q["uri"]]
    report(name, not leak, "no query without --with-query", leak[:3])
    qs = {t["request"]["uri"] for _, t in threads(query) if t.get("request") and t["request"]["uri"]}
    want = {"/content/item/%d?token=secret-%d" % (i + 1, i + 1) for i in range(n)}
    report(name, want <= qs, "--with-query keeps the query", sorted(qs)[:4])

    for path, phase in (("/rewrite/r1", "rewrite"), ("/access/a1", "access")):
        got = [t["request"]["phase"] for _, t in by_uri.get(path, [])]
        report(name, got == [phase], "%s in phase %s" % (path, phase), got)

    entry = by_uri.get("/threads/t1", [])
    lt = [t for _, t in reqs if t["request"]["kind"] == "light thread"]
    ok = len(entry) == 1 and len(lt) == 1 and lt[0]["request"]["request"] == \
        entry[0][1]["request"]["request"] and lt[0]["request"]["uri"] == "/threads/t1"
    report(name, ok, "the light thread is under its request /threads/t1",
           "entry %d, light threads %s" % (len(entry), [t["request"] for t in lt]))

    pids = {pid for pid, _ in ts}
    timers = [(pid, t) for pid, t in reqs if t["request"]["kind"] == "timer"]
    ok = {pid for pid, _ in timers} == pids and len(timers) == len(pids) and \
        all(t["request"]["uri"] is None and t["request"]["phase"] == "timer" for _, t in timers)
    report(name, ok, "each worker's timer is a timer, with no request's labels",
           [(pid, t["request"]) for pid, t in timers])
    # Every request coroutine the handlers made is labelled: nothing else
    # suspended in a handler goes without its request.
    unl = [t["address"] for _, t in ts if t["status"] == "suspended" and not t.get("request")
           and any((f["chunk"] or "").endswith("requests.lua") for f in t["frames"])]
    report(name, not unl, "every suspended handler coroutine has its request", unl)

    if len(found) != n:
        return
    age = [by_uri[u][0][1]["request"]["age_ms"] for u in items]
    pid_of = [by_uri[u][0][0] for u in items]
    # One worker's ages are read at one instant: their differences are the
    # send times' differences (200 ms apart), up to nginx's cached clock
    # (updated once per event loop turn: a few ms).
    diffs = []
    for i in range(n):
        j = pid_of.index(pid_of[i])
        diffs.append((age[i] - age[j]) - (sent[j] - sent[i]))
    span = t1 - t0
    report(name, all(abs(d) <= 100 for d in diffs),
           "ages differ as the send times do, within 100 ms (worst %d ms)"
           % max(abs(d) for d in diffs), diffs)
    off = [a - (t0 - s) for a, s in zip(age, sent)]
    report(name, all(-100 <= o <= span + 100 for o in off),
           "each age within 100 ms of [dump start, dump end] minus its send time (the dump "
           "took %d ms)" % span, off)
    order = {}
    for pid, t in reqs:
        if t["request"]["kind"] == "request":
            order.setdefault(pid, []).append(t["request"]["age_ms"])
    report(name, all(a == sorted(a, reverse=True) for a in order.values()),
           "--sort age lists requests oldest first", order)


main()
