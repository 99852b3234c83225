#!/bin/bash
# SPDX-License-Identifier: MIT
# A hostile target, run as an unprivileged user (tests/workloads/hostile.lua):
#   - chunk, function, upvalue and local names and a comm made of terminal
#     escapes, forged report lines and the formats' separators, and a chunk
#     and a function named with bidi and zero-width characters: every text
#     view, every format and every stderr line holds no control, bidi or
#     invisible character (but the line ends and tabs of the format
#     itself), no forged line and no forged frame, and still names the
#     hostile function;
#   - tables whose array and hash parts point at one untouched 256 MiB
#     mapping and strings whose headers claim 256 MiB: --heap ends within
#     5 s, luabpfprof stays under 64 MiB of RSS, the target's RSS grows by
#     less than 16 MiB and the 18 claims are counted, not believed; the
#     continuous agent with --heap keeps another process's intervals on
#     time and stops within 2 s of SIGTERM;
#   - --heap -d 1h ends within a second of SIGINT, SIGTERM or SIGHUP after
#     its first census, reports the growth over the time elapsed, exits 0.
source "$(dirname "$0")/lib.sh"
trap 'cleanup_children; rm -rf "$TMP"' EXIT
chmod 755 "$TMP"

# The target's user has no privilege at all (setpriv execs: BGPID is the
# target's PID).
NOBODY=(setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all)

cat >"$TMP/clean.py" <<'EOF'
# clean.py KIND FILE [NEEDLE]: no control character but the format's own
# line ends (and tabs in text), no forged report line or frame, and NEEDLE
# (the hostile name, as the format escapes it) present.
import json, os, re, sys
sys.path.insert(0, os.environ["TESTS"] + "/corpus")
import gzip, pprof_strings
kind, path = sys.argv[1], sys.argv[2]
needle = sys.argv[3].encode() if len(sys.argv) > 3 else None
data = open(path, "rb").read()
if kind == "pprof":
    strings = list(pprof_strings.strings(gzip.decompress(data), raw=True))
    data = b"\n".join(strings)
text = data.decode("utf-8")          # valid UTF-8, or the check fails here
# Bidi controls and invisible characters (base/textsafe.c's list, its
# main ranges) reorder or hide what root reads: escaped too.
hidden = lambda o: (o == 0xad or 0x200b <= o <= 0x200f or 0x2028 <= o <= 0x202e or
                    0x2060 <= o <= 0x206f or o == 0xfeff or o == 0x61c)
bad = [c for c in text if (ord(c) < 0x20 and c not in "\n\t") or 0x7f <= ord(c) <= 0x9f or
       hidden(ord(c))]
assert not bad, "control characters %r" % sorted(set(bad))[:8]
for line in text.split("\n"):
    assert not re.match(r"\s*\d+%\s+(FORGED|other)", line), "forged line %r" % line[:80]
    assert not line.startswith(("pwned", " 1%  other", "ww 1%")), "forged line %r" % line[:80]
    if kind == "folded":
        for frame in line.split(";"):
            assert not frame.startswith(("pwned", "\x07", " 99%", "ww 1%", "v?")), \
                "forged frame %r" % frame[:60]
if kind == "json":
    json.loads(text)
if needle is not None:
    assert needle in data, "the hostile name is missing (%r)" % needle
print("ok")
EOF

# clean NAME KIND FILE [NEEDLE]
clean() {
	local out
	out=$(TESTS=$TOP/tests python3 "$TMP/clean.py" "$2" "$3" "${@:4}" 2>&1 | tail -1)
	check "$1 ($out)" [ "$out" = ok ]
}

# --- hostile names -------------------------------------------------------------------------------
start_bg "${NOBODY[@]}" "$LUAJIT" "$WL/hostile.lua" names 120
N=$BGPID
wait_lua "$N"
FESC='f;\x1b]0;pwned\x07\x1b[2K\x0d 99%  FORGED\x0a 1%  other'
CESC='\x1b]0;pwned\x07\x1b[2K\x0d 99%  FORGED\x0a 1%  other'
for mode in f F l Fl v z; do
	"$PROF" -p "$N" -d 1 --jp "$mode" >"$TMP/jp$mode.out" 2>"$TMP/jp$mode.err"
	case $mode in f) needle=$FESC ;; F|l|Fl) needle=$CESC ;; *) needle= ;; esac
	clean "names: --jp $mode" text "$TMP/jp$mode.out" ${needle:+"$needle"}
	clean "names: --jp $mode's stderr" text "$TMP/jp$mode.err"
done
"$PROF" -p "$N" -d 1 --tree >"$TMP/tree.out" 2>"$TMP/tree.err"
clean "names: --tree" text "$TMP/tree.out" "$CESC"
"$PROF" -p "$N" -d 2 --jit >"$TMP/jit.out" 2>"$TMP/jit.err"
clean "names: --jit report" text "$TMP/jit.out" "$CESC"
grep -q 'trace ' "$TMP/jit.out" || fail "names: --jit lists the function's traces" "$(head -c 300 "$TMP/jit.out")"
for fmt in folded svg pprof speedscope; do
	ext=$fmt kind=$fmt needle=
	case $fmt in
	pprof) ext=pb.gz ;;
	speedscope) ext=speedscope.json kind=json ;;
	folded) needle='f%3B%1B]0%3Bpwned%07%1B[2K%0D 99%25  FORGED%0A 1%25  other' ;;
	esac
	"$PROF" -p "$N" -d 1 -o "$TMP/names.$ext" 2>"$TMP/$fmt.err"
	clean "names: $fmt" "$kind" "$TMP/names.$ext" ${needle:+"$needle"}
done
check "names: the SVG is well-formed XML" xmllint --noout "$TMP/names.svg"
"$PROF" --heap -p "$N" >"$TMP/heap.out" 2>"$TMP/heap.err"
clean "names: --heap text" text "$TMP/heap.out" '[upvalue u?v??[2K?ww 1% of'
"$PROF" --heap -p "$N" -f folded >"$TMP/heap.folded" 2>>"$TMP/heap.err"
clean "names: --heap -f folded (';' in an upvalue name splits no frame)" folded \
	"$TMP/heap.folded" '[upvalue u?v??[2K?ww 1% of'
"$PROF" --heap -p "$N" -o "$TMP/heap.svg" 2>>"$TMP/heap.err"
clean "names: --heap svg" svg "$TMP/heap.svg"
"$PROF" --heap -p "$N" -o "$TMP/heap.pb.gz" 2>>"$TMP/heap.err"
clean "names: --heap pprof" pprof "$TMP/heap.pb.gz"
clean "names: --heap's stderr" text "$TMP/heap.err"
# The comm comes back in "PID N (comm) exited": the target ends mid-run.
"$PROF" -p "$N" -v >"$TMP/exit.out" 2>"$TMP/exit.err" &
P=$!
for _ in $(seq 600); do grep -q 'samples, \|VM at' "$TMP/exit.err" && break; sleep 0.1; done
sleep 1
kill "$N"
wait "$P"
clean "names: 'PID N (comm) exited' on stderr" text "$TMP/exit.err" 'a;b \x1b[31mX) exited'
kill "$N" 2>/dev/null

# --- hostile heap claims ---------------------------------------------------------------------------
rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
start_bg "${NOBODY[@]}" "$LUAJIT" "$WL/hostile.lua" heap 300 >"$TMP/hheap.target"
H=$BGPID
for _ in $(seq 100); do grep -q ready "$TMP/hheap.target" && break; sleep 0.1; done
before=$(rss_kib "$H")
/usr/bin/time -f '%e %M' -o "$TMP/hheap.time" timeout 60 "$PROF" --heap -p "$H" \
	>"$TMP/hheap.out" 2>"$TMP/hheap.err"
rc=$?
after=$(rss_kib "$H")
read -r secs maxrss <"$TMP/hheap.time"
inc=$(awk '$1 == "inconsistent" { for (i = 1; i <= NF; i++) if ($i == "believed") print $(i + 1) + 0 }' "$TMP/hheap.out")
check "heap claims: --heap exits 0 ($rc) within 5 s ($secs s)" \
	awk -v r="$rc" -v s="$secs" 'BEGIN { exit !(r == 0 && s < 5) }'
check "heap claims: luabpfprof's RSS under 64 MiB ($maxrss KiB)" [ "$maxrss" -lt 65536 ]
check "heap claims: the target's RSS grows by less than 16 MiB ($before -> $after KiB)" \
	[ $((after - before)) -lt 16384 ]
check "heap claims: 8 arrays, 2 hash parts and 8 strings not believed ($inc)" [ "${inc:-0}" -ge 18 ]
check "heap claims: the report counts no 256 MiB part" \
	bash -c "! grep -Eq 'array [0-9]{9,}|hash [0-9]{9,}' '$TMP/hheap.out'"
clean "heap claims: stderr" text "$TMP/hheap.err"

# The agent: another process's intervals stay on time, SIGTERM ends it.
start_bg "$LUAJIT" "$WL/w631.lua" 300
W=$BGPID
wait_lua "$W"
mkdir -m 700 "$TMP/agent"
"$PROF" -p "$H,$W" --continuous --heap --every 2s --out-dir "$TMP/agent" -v \
	>/dev/null 2>"$TMP/agent.err" &
A=$!
for _ in $(seq 300); do
	[ "$(ls "$TMP/agent" | grep -c -- "-$W\.pb\.gz$")" -ge 4 ] && break
	sleep 0.1
done
t0=$(date +%s%N)
kill -TERM "$A"
for _ in $(seq 100); do kill -0 "$A" 2>/dev/null || break; sleep 0.05; done
t1=$(date +%s%N)
kill -KILL "$A" 2>/dev/null
wait "$A"
arc=$?
# Interval starts, from the file names (YYYYmmddTHHMMSS.mmmZ), in ms.
starts=$(ls "$TMP/agent" | grep -- "-$W\.pb\.gz$" | sed -E 's/^[0-9]{8}T([0-9]{2})([0-9]{2})([0-9]{2})\.([0-9]{3})Z.*/\1 \2 \3 \4/' |
	awk '{ print (($1 * 60 + $2) * 60 + $3) * 1000 + $4 }')
gaps=$(echo "$starts" | awk 'NR > 1 { printf "%d ", $1 - prev } { prev = $1 }')
heaps=$(ls "$TMP/agent" | grep -c -- "-$H-heap\.pb\.gz$")
check "agent: the other process's intervals every 2 s (gaps ms: $gaps)" \
	bash -c "[ -n '$gaps' ] && echo '$gaps' | awk '{ for (i = 1; i <= NF; i++) if (\$i < 1500 || \$i > 2600) exit 1 }'"
check "agent: a heap profile of the hostile process per interval ($heaps)" [ "$heaps" -ge 3 ]
check "agent: SIGTERM ends it within 2 s ($(((t1 - t0) / 1000000)) ms), exit 0 ($arc)" \
	bash -c "[ $(((t1 - t0) / 1000000)) -lt 2000 ] && [ $arc -eq 0 ]"
clean "agent: its log" text "$TMP/agent.err"
kill "$H" "$W" 2>/dev/null

# --- --heap -d 1h ended by a signal -----------------------------------------------------------------
start_bg "$LUAJIT" "$WL/heap_leak.lua" 200 >"$TMP/leak.target"
L=$BGPID
wait_lua "$L"
for sig in INT TERM HUP; do
	"$PROF" --heap -d 1h -p "$L" -v >"$TMP/d$sig.out" 2>"$TMP/d$sig.err" &
	D=$!
	for _ in $(seq 100); do grep -q 'objects walked' "$TMP/d$sig.err" && break; sleep 0.05; done
	sleep 1.5
	t0=$(date +%s%N)
	kill -"$sig" "$D"
	for _ in $(seq 100); do kill -0 "$D" 2>/dev/null || break; sleep 0.05; done
	t1=$(date +%s%N)
	kill -KILL "$D" 2>/dev/null	# a run that ignored the signal fails, not hangs
	wait "$D"
	drc=$?
	ms=$(((t1 - t0) / 1000000))
	over=$(sed -n 's/^# Growth over \([0-9.]*\) s.*/\1/p' "$TMP/d$sig.out")
	check "--heap -d 1h, SIG$sig: exit 0 ($drc) within 1 s ($ms ms)" \
		bash -c "[ $drc -eq 0 ] && [ $ms -lt 1000 ]"
	check "--heap -d 1h, SIG$sig: growth over the time elapsed (${over:-none} s)" \
		awk -v o="${over:-0}" 'BEGIN { exit !(o >= 1.4 && o < 10) }'
done
kill "$L" 2>/dev/null
