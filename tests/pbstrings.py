# The string table of a gzipped pprof profile (field 6 of Profile), read
# with no protobuf library: for the tests' checks on names.
import gzip


def varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7f) << s
        s += 7
        if c < 0x80:
            return v, i


def strings(gz_bytes):
    pb = gzip.decompress(gz_bytes)
    i, out = 0, []
    while i < len(pb):
        key, i = varint(pb, i)
        if key & 7 == 0:
            _, i = varint(pb, i)
        elif key & 7 == 2:
            n, i = varint(pb, i)
            if key >> 3 == 6:
                out.append(pb[i:i + n])
            i += n
        else:
            raise SystemExit("unexpected wire type %d" % (key & 7))
    return out
