#!/bin/bash
# SPDX-License-Identifier: MIT
# OTLP profiles (issue 28) on real LuaJIT processes:
#   -o FILE.otlp and -f otlp: an ExportProfilesServiceRequest that protoc
#     decodes against the schema kept in tests/otlp, with the resource attributes, sample
#     types, frames with lines and labels of the run (cpu, alloc);
#   --push-api otlp in continuous mode, next to --out-dir's pprof files: the
#     ingest server (tests/ingest) checks each body with protoc and keeps it,
#     and every OTLP profile equals the pprof file of the same interval,
#     process and type (tests/otlp_check.py: stacks, lines, mappings with
#     build IDs, labels, values), for cpu, off_cpu and inuse_space; a
#     request compared with another interval's files must differ;
#   the spool keeps OTLP requests while the backend is down and delivers
#     them later, with the bearer token and tenant.
set -u
. "$(dirname "$0")/lib.sh"
cd "$TOP"
trap 'cleanup_children; rm -rf "$TMP"' EXIT

CHECK=$TOP/tests/otlp_check.py
PPROF_PROTO=$(dpkg -L golang-github-google-pprof-dev 2>/dev/null | grep '/proto/profile.proto$' | head -1)
for need in protoc python3 go; do
	command -v "$need" >/dev/null || { fail "tools" "$need missing: run make test-deps"; exit 1; }
done
[ -n "$PPROF_PROTO" ] || { fail "pprof proto" "golang-github-google-pprof-dev missing"; exit 1; }
HOST=$(hostname)

# --- one-shot files --------------------------------------------------------
start_bg "$LUAJIT" "$WL/otlp_mix.lua" 60
MIX=$BGPID
wait_lua "$MIX"
"$PROF" -p "$MIX" -d 3 -F 199 --native -o "$TMP/cpu.otlp" 2>"$TMP/cpu.err"
if python3 "$CHECK" summary "$OTLP_SCHEMA" "$TMP/cpu.otlp" >"$TMP/cpu.sum" 2>"$TMP/cpu.sumerr"; then
	pass "-o cpu.otlp decodes with protoc against tests/otlp"
else
	fail "-o cpu.otlp decodes" "$(head -c 300 "$TMP/cpu.sumerr")"
fi
s=$TMP/cpu.sum
check "resource: service.name is the comm" grep -qx "resource service.name=luajit" "$s"
check "resource: process.pid" grep -qx "resource process.pid=$MIX" "$s"
check "resource: process.executable.name" grep -qx "resource process.executable.name=luajit" "$s"
check "resource: host.name" grep -qx "resource host.name=$HOST" "$s"
check "no container.id for a host process" bash -c "! grep -q container $s"
check "one cpu/nanoseconds profile" test "$(grep -c '^profile .*type=cpu/nanoseconds' "$s")" = 1
check "frames: burn with its file and a line in it" \
	grep -Eq '^frame otlp_mix.lua:burn [^ ]*otlp_mix.lua:1[1-6]$' "$s"
check "frames: build with its file and a line in it" \
	grep -Eq '^frame otlp_mix.lua:build [^ ]*otlp_mix.lua:2[0-6]$' "$s"
check "--native frames: lua_pcall, mapped" grep -q '^frame lua_pcall .* mapped$' "$s"
exe_build=$(readelf -n "$LUAJIT_EXE" 2>/dev/null | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p' | head -1)
check "mappings: the LuaJIT executable with its build ID (${exe_build:-none})" \
	grep -q "^mapping $(readlink -f "$LUAJIT_EXE") build=${exe_build:-none}\$" "$s"
check "labels: vmstate and thread id" \
	bash -c "grep -Eq '^label vmstate=[NICGJ]\$' $s && grep -qx 'label tid=$MIX' $s"
# Values are nanoseconds: samples x period at 199 Hz, about 3 s of one CPU.
value=$(sed -n 's/^profile .*value=\([0-9]*\)$/\1/p' "$s")
samples=$(sed -n 's/.*: \([0-9]*\) samples in .*/\1/p' "$TMP/cpu.err")
period=$((1000000000 / 199))
check "values: samples x period ($samples x $period = ${value:-?} ns)" \
	test "${value:-0}" = "$((samples * period))" -a "${samples:-0}" -gt 100

# The kept schema names only the fields luabpfprof writes: one it does not
# know (field 15 of the request, varint 1: bytes 0x78 0x01) is refused.
{ cat "$TMP/cpu.otlp"; printf '\x78\x01'; } >"$TMP/extra.otlp"
if python3 "$CHECK" summary "$OTLP_SCHEMA" "$TMP/extra.otlp" >/dev/null 2>"$TMP/extra.err"; then
	fail "a field the schema lacks is refused" "accepted"
else
	check "a field the schema lacks is refused" grep -q 'field 15 (1) is not in the schema' "$TMP/extra.err"
fi

"$PROF" -p "$MIX" -d 2 -f otlp -o "$TMP/named.bin" 2>/dev/null
python3 "$CHECK" summary "$OTLP_SCHEMA" "$TMP/named.bin" >"$TMP/named.sum" 2>&1
check "-f otlp writes the same format under any name" \
	grep -q '^profile .*type=cpu/nanoseconds' "$TMP/named.sum"

"$PROF" -p "$MIX" -e alloc --alloc-exact -d 3 -o "$TMP/alloc.otlp" 2>"$TMP/alloc.err"
python3 "$CHECK" summary "$OTLP_SCHEMA" "$TMP/alloc.otlp" >"$TMP/alloc.sum" 2>&1
check "-e alloc: one alloc_space/bytes profile" grep -q '^profile .*type=alloc_space/bytes' "$TMP/alloc.sum"
check "-e alloc: build allocates" grep -q '^frame otlp_mix.lua:build ' "$TMP/alloc.sum"
cleanup_children

# --- continuous: OTLP pushes next to pprof files ----------------------------
if ! build_ingest >"$TMP/build.log" 2>&1; then
	fail "ingest server builds" "$(tr '\n' '|' < "$TMP/build.log")"
	exit 0
fi
mkdir -p "$TMP/otlp" "$TMP/files" "$TMP/spool"
start_ingest "$TMP/s.log" 0 -otlp-proto "$OTLP_SCHEMA" -otlp-dir "$TMP/otlp" || { fail "ingest server starts" "$(cat "$TMP/s.log.out")"; exit 0; }

start_bg "$LUAJIT" "$WL/otlp_mix.lua" 60
MIX=$BGPID
wait_lua "$MIX"
# Two runs (--heap takes no -e nor --native): CPU and heap, then CPU and
# off-CPU with native frames (mappings with build IDs).
"$PROF" --continuous -p "$MIX" -F 99 --every 2s -d 5 --heap \
	--out-dir "$TMP/files" --push "http://127.0.0.1:$SRV_PORT" --push-api otlp \
	2>"$TMP/agent.err"
"$PROF" --continuous -p "$MIX" -e cpu,off-cpu -F 99 --every 2s -d 5 --native \
	--out-dir "$TMP/files" --push "http://127.0.0.1:$SRV_PORT" --push-api otlp \
	2>>"$TMP/agent.err"
check "agent: every OTLP request delivered" \
	test "$(grep -c "push: [1-9][0-9]* delivered, 0 refused, 0 dropped (spool full), 0 not" "$TMP/agent.err")" = 2
check "ingest: no OTLP request refused" bash -c "! grep -q '^reject' $TMP/s.log"
nreq=$(grep -c 'route=v1development/profiles' "$TMP/s.log")
check "ingest: one OTLP request per interval ($nreq)" test "$nreq" -ge 5
if python3 "$CHECK" compare "$OTLP_SCHEMA" "$PPROF_PROTO" "$TMP"/otlp/*.otlp -- "$TMP"/files/*.pb.gz \
	>"$TMP/cmp.out" 2>"$TMP/cmp.err"; then
	pass "every OTLP profile equals the pprof file of its interval ($(wc -l <"$TMP/cmp.out") profiles)"
else
	fail "OTLP equals pprof" "$(head -c 400 "$TMP/cmp.err")"
fi
for t in cpu/nanoseconds off_cpu/nanoseconds inuse_space/bytes; do
	check "compared: $t profiles" grep -q "type=$t " "$TMP/cmp.out"
done
# The comparison can fail: the first request against the last interval's files.
first=$(ls "$TMP"/otlp/*.otlp 2>/dev/null | head -1)
last_stamp=$(ls "$TMP/files" | sort | tail -1 | cut -d- -f1)
check "a request differs from another interval's pprof files" \
	bash -c "[ -n '$first' ] && ! python3 '$CHECK' compare '$OTLP_SCHEMA' '$PPROF_PROTO' '$first' -- $TMP/files/$last_stamp-* >/dev/null 2>&1"
cleanup_children

# --- spool, token and tenant -------------------------------------------------
rm -f "$TMP"/otlp/*
echo "s3cret-token" >"$TMP/token"
chmod 600 "$TMP/token"
dead=$((SRV_PORT + 1))
start_bg "$LUAJIT" "$WL/otlp_mix.lua" 60
MIX=$BGPID
wait_lua "$MIX"
"$PROF" --continuous -p "$MIX" -F 99 --every 1s -d 3 --push "http://127.0.0.1:$dead" \
	--push-api otlp --spool-dir "$TMP/spool" --auth-token-file "$TMP/token" --tenant t1 \
	2>"$TMP/down.err"
check "backend down: OTLP requests stay in the spool" \
	bash -c "grep -q 'not delivered (kept in the spool)' $TMP/down.err && grep -lq 'application/x-protobuf' $TMP/spool/*"
# The spool is sent only to the backend it was spooled for (issue 42
# item 8): the server comes up on the port that was down.
start_ingest "$TMP/s2.log" "$dead" -otlp-proto "$OTLP_SCHEMA" -otlp-dir "$TMP/otlp" || { fail "ingest server starts again" ""; exit 0; }
"$PROF" --continuous -p "$MIX" -F 99 --every 1s -d 2 --push "http://127.0.0.1:$dead" \
	--push-api otlp --spool-dir "$TMP/spool" --auth-token-file "$TMP/token" --tenant t1 \
	2>"$TMP/up.err"
n=$(grep -c 'route=v1development/profiles.*tenant=t1.auth=Bearer s3cret-token' "$TMP/s2.log")
check "backend up: the spooled and new requests arrive, with token and tenant ($n)" test "$n" -ge 4
