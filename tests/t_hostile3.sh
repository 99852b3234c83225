#!/bin/bash
# Hostile targets and hostile users, round 3 (issue 42), each attack made
# by an unprivileged user:
#   - dump's text: chunk, function and local names and values with ESC,
#     BEL, CR, LF and bidi or zero-width characters come out escaped, on
#     one line each, the hostile names still there.
source "$(dirname "$0")/lib.sh"
trap 'cleanup_children; rm -rf "$TMP"' EXIT
chmod 755 "$TMP"

NOBODY=(setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all)

# unsafe FILE: prints the first control (but LF and tab), bidi or invisible
# character of FILE, or invalid UTF-8; nothing when clean.
unsafe() {
	python3 - "$1" <<'EOF'
import sys
text = open(sys.argv[1], "rb").read().decode("utf-8", "replace")
hidden = lambda o: (o == 0xad or 0x200b <= o <= 0x200f or 0x2028 <= o <= 0x202e or
                    0x2060 <= o <= 0x206f or o == 0xfeff or o == 0x61c or o == 0xfffd)
for c in text:
    o = ord(c)
    if (o < 0x20 and c not in "\n\t") or 0x7f <= o <= 0x9f or hidden(o):
        print("U+%04X" % o)
        break
EOF
}

# --- dump's text escapes a target's names ----------------------------------------------------
start_bg "${NOBODY[@]}" "$LUAJIT" "$WL/hostile.lua" names 60
N=$BGPID
wait_lua "$N"
timeout 30 "$PROF" dump -p "$N" --locals >"$TMP/dump.txt" 2>"$TMP/dump.err"
rc=$?
bad=$(unsafe "$TMP/dump.txt")
check "dump text: exit 0 ($rc), no control, bidi or invisible character (${bad:-none})" \
	bash -c "[ $rc -eq 0 ] && [ -z '$bad' ]"
# The coroutine's frame: chunk "=\u202egnp.lua\u200b", each byte escaped,
# and a local's value '\u2066hid' .. ESC[2J CR LF FORGED on its line (a
# value's bytes outside printable ASCII are '?' already: heap/dump_value.c).
check "dump text: the bidi chunk name, escaped" \
	grep -qF ' (\xe2\x80\xaegnp.lua\xe2\x80\x8b:3)' "$TMP/dump.txt"
check "dump text: the local's value on its line, escaped" \
	grep -qF '        held = "???hid?[2J??FORGED"' "$TMP/dump.txt"
check "dump text: the forging name escaped" \
	grep -qF '\x1b]0;pwned\x07\x1b[2K\x0d 99%  FORGED\x0a 1%  other' "$TMP/dump.txt"
check "dump text: no forged line" bash -c "! grep -Eq '^( *[0-9]+%|FORGED)' '$TMP/dump.txt'"
bad=$(unsafe "$TMP/dump.err")
check "dump text: stderr clean (${bad:-none})" [ -z "$bad" ]
timeout 30 "$PROF" dump -p "$N" --locals --json >"$TMP/dump.json" 2>/dev/null
bad=$(unsafe "$TMP/dump.json")
check "dump --json: bidi and zero width as \\u escapes (${bad:-none})" \
	bash -c "[ -z '$bad' ] && grep -qF '\\u202egnp.lua\\u200b' '$TMP/dump.json'"
kill "$N" 2>/dev/null
