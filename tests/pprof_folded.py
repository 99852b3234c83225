#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Reads a (gzip'd) pprof profile back as folded stacks, root first.

Prints one line per sample, "frame;frame;...;leaf VALUE", the frames being
the function names of each location's lines (an inlined chain is one
location with several lines, innermost first, as pprof stores it), VALUE
the sample's value at index IDX of its values (default 0).  Only the
protobuf wire format of perftools.profiles.Profile is needed: no pprof
library, so it runs wherever python3 does (the kernel matrix's guests).

Usage: pprof_folded.py FILE [IDX]
"""
import gzip
import sys


def varint(buf, pos):
    value = shift = 0
    while True:
        byte = buf[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7


def fields(buf):
    """(field, wire type, value) of each field of one message."""
    pos = 0
    while pos < len(buf):
        key, pos = varint(buf, pos)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = varint(buf, pos)
        elif wire == 1:
            value, pos = buf[pos:pos + 8], pos + 8
        elif wire == 5:
            value, pos = buf[pos:pos + 4], pos + 4
        elif wire == 2:
            size, pos = varint(buf, pos)
            value, pos = buf[pos:pos + size], pos + size
        else:
            raise ValueError("bad wire type %d at %d" % (wire, pos))
        yield field, wire, value


def ints(wire, value):
    """A repeated integer field: packed (wire 2) or one value (wire 0)."""
    if wire == 0:
        return [value]
    out, pos = [], 0
    while pos < len(value):
        v, pos = varint(value, pos)
        out.append(v)
    return out


def message(value, wanted):
    """The integer fields of a small message, by number (last one wins;
    repeated ones listed)."""
    got = {}
    for field, wire, v in fields(value):
        if field in wanted:
            got.setdefault(field, []).extend(ints(wire, v) if wire in (0, 2)
                                             and wanted[field] == "int" else [v])
    return got


def load(path):
    """The profile's bytes, gunzipped when they are gzip'd."""
    with open(path, "rb") as f:
        data = f.read()
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


def main():
    data = load(sys.argv[1])
    idx = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    strings, functions, locations, samples = [], {}, {}, []
    for field, wire, value in fields(data):
        if field == 6:
            strings.append(value.decode("utf-8", "replace"))
        elif field == 5:
            m = message(value, {1: "int", 2: "int"})
            functions[m.get(1, [0])[0]] = m.get(2, [0])[0]
        elif field == 4:
            m = message(value, {1: "int", 4: "msg"})
            lines = [message(line, {1: "int"}).get(1, [0])[0] for line in m.get(4, [])]
            locations[m.get(1, [0])[0]] = lines
        elif field == 2:
            m = message(value, {1: "int", 2: "int"})
            samples.append((m.get(1, []), m.get(2, [])))
    for locs, values in samples:
        frames = []
        for loc in reversed(locs):	# pprof lists the leaf first
            for fn in reversed(locations.get(loc, [])):
                frames.append(strings[functions.get(fn, 0)])
        if idx < len(values):
            print("%s %d" % (";".join(frames), values[idx]))


if __name__ == "__main__":
    main()
