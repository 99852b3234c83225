#!/bin/bash
# SPDX-License-Identifier: MIT
# vmlinux-h.sh [PACKAGE]: regenerates vmlinux/arm64/vmlinux.h, the kernel
# types the BPF programs are built with for arm64, from the BTF of Debian's
# arm64 kernel (the guest's, tests/t_arm64.sh): the package is downloaded,
# never installed (tests/kernels/boot.sh --fetch), its Image holds the BTF
# blob uncompressed (section .BTF; the Image has no ELF headers to name
# it, so the blob is found by its header), and bpftool writes it as C.
# CO-RE relocates every field the programs read, so one kernel's header
# serves every arm64 kernel with BTF, as the x86 one does.
set -euo pipefail
cd "$(dirname "$0")/../.."
pkg=${1:-linux-image-6.1.0-56-arm64}
tree=$(tests/kernels/boot.sh "$pkg" --fetch)
image=$(find "$tree/boot" -name 'vmlinuz*' | head -n 1)
btf=$(mktemp /tmp/lbp-btf.XXXXXX)
trap 'rm -f "$btf"' EXIT
# struct btf_header (include/uapi/linux/btf.h): magic 0xeB9F, version 1,
# flags, hdr_len 24, type_off, type_len, str_off, str_len; types first,
# then strings, the string section starting with an empty string.
python3 - "$image" "$btf" <<'PY'
import struct, sys
data = open(sys.argv[1], 'rb').read()
best = None
at = data.find(b'\x9f\xeb\x01\x00')
while at >= 0:
    h = data[at:at + 24]
    if len(h) == 24:
        _, _, _, hlen, toff, tlen, soff, slen = struct.unpack('<HBBIIIII', h)
        end = at + hlen + soff + slen
        if hlen == 24 and toff == 0 and soff == tlen and tlen > 0 and slen > 0 \
                and end <= len(data) and data[at + hlen + soff] == 0 \
                and (best is None or end - at > best[1] - best[0]):
            best = (at, end)
    at = data.find(b'\x9f\xeb\x01\x00', at + 1)
if not best:
    sys.exit('vmlinux-h: no BTF blob in ' + sys.argv[1])
open(sys.argv[2], 'wb').write(data[best[0]:best[1]])
print('vmlinux-h: BTF of %d bytes at offset %d' % (best[1] - best[0], best[0]), file=sys.stderr)
PY
mkdir -p vmlinux/arm64
bpftool btf dump file "$btf" format c >vmlinux/arm64/vmlinux.h
echo "vmlinux-h: vmlinux/arm64/vmlinux.h from $pkg ($(wc -l <vmlinux/arm64/vmlinux.h) lines)"
