#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks `luabpfprof dump --json` against the truth a workload wrote
(tests/workloads/dump_coros.lua): every coroutine it lists is in the dump
with its status and its Lua frames' lines (and names, where
debug.getinfo gave one), in order; with --locals, the values it wrote;
and nothing unread (the program is blocked while it is dumped).
Usage: dump_check.py TRUTH DUMP.json [--locals].  Prints one line of
figures; exits 1 with the first mismatches on stderr."""
import json
import sys


def load_truth(path):
    threads = {}
    locals_ = {}
    for line in open(path):
        parts = line.rstrip("\n").split(" ", 3)
        if parts[0] == "T":
            threads[parts[1]] = {"status": parts[2], "not_started": parts[3].split()[0] == "1",
                                 "firstline": int(parts[3].split()[1]), "frames": []}
        elif parts[0] == "F":
            threads[parts[1]]["frames"].append((parts[2], int(parts[3])))
        elif parts[0] == "L":
            name, value = parts[2], parts[3]
            locals_.setdefault(parts[1], []).append((name, value))
    return threads, locals_


def addr_key(addr):
    """An address as a number: tostring() pads it on some builds
    (OpenResty's on arm64 prints thread: 0x01b8d6e5c5e0), the dump not."""
    return addr if addr == "main" else int(addr, 16)


def main():
    truth_path, dump_path = sys.argv[1], sys.argv[2]
    want_locals = "--locals" in sys.argv[3:]
    threads, locals_ = load_truth(truth_path)
    doc = json.load(open(dump_path))
    got = {}
    for vm in doc["vms"]:
        for t in vm["threads"]:
            got[addr_key(t["address"])] = t
            if t["main"]:
                got["main"] = t
    errors = []
    # The program is blocked: nothing changes under the read.
    for vm in doc["vms"]:
        unread = {k: v for k, v in vm["unread"].items() if v}
        if unread:
            errors.append(f"a quiescent process, yet unread: {unread}")
    frames_checked = locals_checked = 0
    for addr, want in threads.items():
        t = got.get(addr_key(addr))
        if t is None:
            errors.append(f"{addr}: not in the dump")
            continue
        if t["status"] != want["status"]:
            errors.append(f"{addr}: status {t['status']}, want {want['status']}")
        if want["not_started"]:
            fl = t["frames"][0]["firstline"] if t["frames"] else None
            if not t["not_started"] or fl != want["firstline"]:
                errors.append(f"{addr}: not started at line {want['firstline']}, dump says "
                              f"not_started={t['not_started']} firstline={fl}")
            frames_checked += 1
            continue
        lua = [f for f in t["frames"] if f["chunk"] is not None]
        have = [(f["function"], f["line"]) for f in lua]
        if len(have) < len(want["frames"]):
            errors.append(f"{addr}: {len(have)} Lua frames {have}, want {want['frames']}")
            continue
        for (wname, wline), (gname, gline) in zip(want["frames"], have):
            if gline != wline or (wname != "?" and gname != wname):
                errors.append(f"{addr}: frames {have}, want {want['frames']}")
                break
            frames_checked += 1
        if want_locals:
            top = {l["name"]: l["value"] for l in lua[0]["locals"]} if lua else {}
            for name, value in locals_.get(addr, []):
                gv = top.get(name)
                ok = gv is not None and (gv.endswith(value) if value.startswith("(") else gv == value)
                if not ok:
                    errors.append(f"{addr}: local {name} = {gv!r}, want {value!r}")
                locals_checked += 1
    print(f"threads={len(threads)} dumped={len(got) - ('main' in got)} frames={frames_checked} "
          f"locals={locals_checked} errors={len(errors)}")
    for e in errors[:10]:
        print(e, file=sys.stderr)
    sys.exit(1 if errors or not threads else 0)


main()
