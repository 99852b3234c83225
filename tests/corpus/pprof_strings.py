#!/usr/bin/env python3
"""Prints the string table of a gzip'd pprof profile, one string a line.

The string table (field 6 of perftools.profiles.Profile) holds every
function, file and mapping name the profile shows; tests/corpus/lib.sh
looks in it for raw addresses and [builtin#N] names.  Only the protobuf
wire format is needed, so no pprof library is involved.
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


def strings(buf, raw=False):
    """The strings of an uncompressed profile; bytes as stored if raw."""
    pos = 0
    while pos < len(buf):
        key, pos = varint(buf, pos)
        field, wire = key >> 3, key & 7
        if wire == 0:
            _, pos = varint(buf, pos)
        elif wire == 1:
            pos += 8
        elif wire == 5:
            pos += 4
        elif wire == 2:
            size, pos = varint(buf, pos)
            if field == 6:
                b = buf[pos:pos + size]
                yield b if raw else b.decode("utf-8", "replace")
            pos += size
        else:
            raise ValueError("bad wire type %d at %d" % (wire, pos))


def main():
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    for s in strings(data):
        print(s.replace("\n", " "))


if __name__ == "__main__":
    main()
