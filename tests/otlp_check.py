#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compares OTLP profiles requests with pprof profiles of the same run.

Both are decoded by protoc (the OTLP request against the schema the project
keeps in tests/otlp, pprof against golang-github-google-pprof-dev's
profile.proto) and read back from
protoc's text format into one canonical form per profile:

    (pid, sample type, time) -> {(stack, labels): value}

where a stack is the frames leaf first, each (name, system name, file, start
line, line, mapping), the mapping being (file, build ID, start, limit,
offset, address) or "[lua]", and labels are pprof's (the OTLP resource's
attributes and sample attributes mapped back to pprof's keys).

    otlp_check.py compare OTLP_SCHEMA_DIR PROFILE_PROTO OTLP... -- PPROF...
        every OTLP profile has a pprof profile with the same key and the
        same samples, and the other way round; prints one line per match
    otlp_check.py summary OTLP_SCHEMA_DIR OTLP
        prints facts the tests grep: resource attributes, sample types,
        function names with lines, mappings, labels
    otlp_check.py labels PROFILE_PROTO PPROF
        prints the labels of a pprof file's samples
Exit status 0 when all agree, 1 with the first difference on stderr.
"""
import gzip
import re
import subprocess
import sys

OTLP_MSG = "opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest"
OTLP_FILE = "profiles.proto"

# OTLP resource attributes -> the pprof labels they stand for.
RESOURCE_LABELS = {
    "process.pid": "pid", "process.executable.name": "comm",
    "container.id": "container_id", "container.name": "container",
    "k8s.pod.name": "pod", "k8s.pod.uid": "pod_uid", "k8s.namespace.name": "namespace",
}


def unescape(s):
    """protoc's C-style string escapes to bytes, then UTF-8."""
    out, i = bytearray(), 0
    simple = {"n": 10, "t": 9, "r": 13, '"': 34, "'": 39, "\\": 92, "a": 7, "b": 8,
              "f": 12, "v": 11, "?": 63}
    while i < len(s):
        c = s[i]
        if c != "\\":
            out += c.encode()
            i += 1
            continue
        n = s[i + 1]
        if n in simple:
            out.append(simple[n])
            i += 2
        elif n == "x":
            m = re.match(r"[0-9a-fA-F]{1,2}", s[i + 2:])
            out.append(int(m.group(0), 16))
            i += 2 + len(m.group(0))
        else:
            m = re.match(r"[0-7]{1,3}", s[i + 1:])
            out.append(int(m.group(0), 8))
            i += 1 + len(m.group(0))
    return out.decode("utf-8")


def parse_text(text):
    """protoc text format -> nested dicts of lists."""
    root, stack = {}, []
    cur = root
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line == "}":
            cur = stack.pop()
            continue
        if line.endswith("{"):
            if re.fullmatch(r"\d+ *\{", line):
                sys.exit("message field %s is not in the schema" % line[:-1].strip())
            child = {}
            cur.setdefault(line[:-1].strip(), []).append(child)
            stack.append(cur)
            cur = child
            continue
        key, value = line.split(":", 1)
        if re.fullmatch(r"\d+", key):
            # protoc names every field the schema has; a bare number is one
            # it lacks, or one written with another wire type.
            sys.exit("field %s (%s) is not in the schema" % (key, value.strip()))
        value = value.strip()
        if value.startswith('"'):
            value = unescape(value[1:-1])
        elif re.fullmatch(r"-?\d+", value):
            value = int(value)
        cur.setdefault(key, []).append(value)
    return root


def protoc(proto_dir, proto_file, message, data):
    r = subprocess.run(["protoc", "-I", proto_dir, "--decode=" + message, proto_file],
                       input=data, capture_output=True)
    if r.returncode:
        sys.exit("protoc --decode=%s: %s" % (message, r.stderr.decode().strip()))
    return parse_text(r.stdout.decode())


def one(d, key, default=0):
    return d.get(key, [default])[0]


def read_otlp(proto_dir, path):
    with open(path, "rb") as f:
        return protoc(proto_dir, OTLP_FILE, OTLP_MSG, f.read())


def otlp_profiles(req):
    """[(key, samples, resource attributes)] of one request."""
    d = one(req, "dictionary", {})
    strings = d.get("string_table", [])
    funcs, locs, maps = d.get("function_table"), d.get("location_table"), d.get("mapping_table")
    attrs, stacks = d.get("attribute_table"), d.get("stack_table")
    for table, name in ((funcs, "function"), (locs, "location"), (maps, "mapping"),
                        (attrs, "attribute"), (stacks, "stack")):
        if not table or table[0]:
            sys.exit("%s_table[0] is not the zero value" % name)
    if not strings or strings[0] != "":
        sys.exit('string_table[0] is not ""')

    def attr(i):
        a = attrs[i]
        v = one(a, "value", {})
        value = v["string_value"][0] if "string_value" in v else one(v, "int_value")
        return strings[one(a, "key_strindex")], value

    def frame(li):
        loc = locs[li]
        out = []
        for ln in loc.get("lines", []):
            fn = funcs[one(ln, "function_index")]
            out.append((strings[one(fn, "name_strindex")], strings[one(fn, "system_name_strindex")],
                        strings[one(fn, "filename_strindex")], one(fn, "start_line"),
                        one(ln, "line")))
        mi = one(loc, "mapping_index")
        m = maps[mi]
        mfile = strings[one(m, "filename_strindex")]
        if not mi:
            mapping = None
        elif mfile == "[lua]":
            mapping = "[lua]"
        else:
            build = dict(attr(i) for i in m.get("attribute_indices", []))
            mapping = (mfile, build.get("process.executable.build_id.gnu", ""),
                       one(m, "memory_start"), one(m, "memory_limit"), one(m, "file_offset"),
                       one(loc, "address"))
        return (tuple(out), mapping)

    result = []
    for rp in req.get("resource_profiles", []):
        res = {}
        for kv in one(rp, "resource", {}).get("attributes", []):
            v = one(kv, "value", {})
            res[one(kv, "key", "")] = v["string_value"][0] if "string_value" in v else one(v, "int_value")
        base = {RESOURCE_LABELS[k]: v for k, v in res.items() if k in RESOURCE_LABELS}
        for sp in rp.get("scope_profiles", []):
            for prof in sp.get("profiles", []):
                st = one(prof, "sample_type", {})
                typ = (strings[one(st, "type_strindex")], strings[one(st, "unit_strindex")])
                samples = {}
                for s in prof.get("samples", []):
                    st_ = stacks[one(s, "stack_index")]
                    stack = tuple(frame(i) for i in st_.get("location_indices", []))
                    labels = dict(base)
                    for i in s.get("attribute_indices", []):
                        k, v = attr(i)
                        labels["tid" if k == "thread.id" else k] = v
                    if typ[0] == "inuse_space":	# the pprof heap has no labels
                        labels = {}
                    key = (stack, tuple(sorted(labels.items())))
                    samples[key] = samples.get(key, 0) + sum(s.get("values", []))
                result.append(((res.get("process.pid", 0), typ, one(prof, "time_unix_nano")),
                               samples, res))
    return result


def pprof_profile(proto, path):
    with open(path, "rb") as f:
        data = gzip.decompress(f.read())
    import os
    p = protoc(os.path.dirname(proto), os.path.basename(proto), "perftools.profiles.Profile", data)
    strings = p.get("string_table", [])
    funcs = {one(f, "id"): f for f in p.get("function", [])}
    locs = {one(l, "id"): l for l in p.get("location", [])}
    maps = {one(m, "id"): m for m in p.get("mapping", [])}
    # default_sample_type names a type (a string index); else the last one.
    want = one(p, "default_sample_type")
    vt = [t for t in p["sample_type"] if want and one(t, "type") == want] or p["sample_type"][-1:]
    vt = vt[0]
    typ = (strings[one(vt, "type")], strings[one(vt, "unit")])

    def frame(li):
        loc = locs[li]
        out = []
        for ln in loc.get("line", []):
            fn = funcs[one(ln, "function_id")]
            out.append((strings[one(fn, "name")], strings[one(fn, "system_name")],
                        strings[one(fn, "filename")], one(fn, "start_line"), one(ln, "line")))
        mid = one(loc, "mapping_id")
        if not mid:
            mapping = None
        else:
            m = maps[mid]
            mfile = strings[one(m, "filename")]
            mapping = "[lua]" if mfile == "[lua]" else (
                mfile, strings[one(m, "build_id")], one(m, "memory_start"),
                one(m, "memory_limit"), one(m, "file_offset"), one(loc, "address"))
        return (tuple(out), mapping)

    samples, pid = {}, 0
    for s in p.get("sample", []):
        stack = tuple(frame(i) for i in s.get("location_id", []))
        labels = {}
        for lb in s.get("label", []):
            k = strings[one(lb, "key")]
            labels[k] = strings[lb["str"][0]] if "str" in lb else one(lb, "num")
        pid = labels.get("pid", pid)
        if typ[0] == "inuse_space":
            labels = {}
        key = (stack, tuple(sorted(labels.items())))
        samples[key] = samples.get(key, 0) + s["value"][-1]
    if not pid:
        m = re.search(r"-(\d+)(-[0-9a-f]{12})?-heap\.pb\.gz$", path)
        pid = int(m.group(1)) if m else 0
    return (pid, typ, one(p, "time_nanos")), samples


def compare(argv):
    schema, proto = argv[0], argv[1]
    cut = argv.index("--")
    otlps, pprofs = argv[2:cut], argv[cut + 1:]
    ours = {}
    for path in otlps:
        for key, samples, _ in otlp_profiles(read_otlp(schema, path)):
            if key in ours:
                sys.exit("two OTLP profiles for %s" % (key,))
            ours[key] = samples
    theirs = {}
    for path in pprofs:
        key, samples = pprof_profile(proto, path)
        if samples:
            theirs[key] = samples
    if not ours:
        sys.exit("no OTLP profile")
    for key, samples in theirs.items():
        if key not in ours:
            sys.exit("pprof profile %s has no OTLP twin" % (key,))
    for key, samples in sorted(ours.items()):
        if not samples:
            continue
        if key not in theirs:
            sys.exit("OTLP profile %s has no pprof twin (pprof: %s)" % (key, sorted(theirs)))
        other = theirs[key]
        for k in set(samples) | set(other):
            if samples.get(k) != other.get(k):
                sys.exit("profile %s: sample %s: OTLP %s, pprof %s" %
                         (key, k, samples.get(k), other.get(k)))
        print("match pid=%d type=%s/%s samples=%d value=%d" %
              (key[0], key[1][0], key[1][1], len(samples), sum(samples.values())))


def summary(argv):
    schema, path = argv[0], argv[1]
    for key, samples, res in otlp_profiles(read_otlp(schema, path)):
        print("profile pid=%d type=%s/%s samples=%d value=%d" %
              (key[0], key[1][0], key[1][1], len(samples), sum(samples.values())))
        for k, v in sorted(res.items()):
            print("resource %s=%s" % (k, v))
        seen = set()
        for (stack, labels), value in samples.items():
            for lines, mapping in stack:
                for name, _, file, _, line in lines:
                    seen.add("frame %s %s:%d%s" % (name, file, line,
                                                  " mapped" if isinstance(mapping, tuple) else ""))
                if isinstance(mapping, tuple):
                    seen.add("mapping %s build=%s" % (mapping[0], mapping[1]))
            for k, v in labels:
                seen.add("label %s=%s" % (k, v))
        for s in sorted(seen):
            print(s)


def labels(argv):
    """The distinct labels of a pprof file's samples."""
    _, samples = pprof_profile(argv[0], argv[1])
    for k, v in sorted({kv for (_, lbs) in samples for kv in lbs}):
        print("label %s=%s" % (k, v))


if __name__ == "__main__":
    {"compare": compare, "summary": summary, "labels": labels}[sys.argv[1]](sys.argv[2:])
