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


def main():
    for field, _, value in fields(load(sys.argv[1])):
        if field == 6:
            print(value.decode("utf-8", "replace").replace("\n", " "))


if __name__ == "__main__":
    main()
