#!/usr/bin/env python3
"""Prints the string table of a gzip'd pprof profile, one string a line.

The string table (field 6 of perftools.profiles.Profile) holds every
function, file and mapping name the profile shows; tests/corpus/lib.sh
looks in it for raw addresses and [builtin#N] names.  The wire format is
read by tests/pprof_folded.py: no pprof library is involved.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from pprof_folded import fields, load  # noqa: E402


def strings(buf, raw=False):
    """The strings of an uncompressed profile; bytes as stored if raw."""
    for field, _, value in fields(buf):
        if field == 6:
            yield value if raw else value.decode("utf-8", "replace")


def main():
    for s in strings(load(sys.argv[1])):
        print(s.replace("\n", " "))


if __name__ == "__main__":
    main()
