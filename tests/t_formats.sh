#!/bin/bash
# SPDX-License-Identifier: MIT
# Exported formats checked by real tools, offline: the synthetic profile of
# user/report/test_export_fixture.h is written by test_export_files, then
#   folded:     parsed back (tests/node/check_folded.js), rendered by stackvis;
#   pprof:      go tool pprof -raw/-traces/-top/-lines, npm pprof-format,
#               protoc --decode with pprof's own profile.proto;
#   speedscope: ajv against the schema the speedscope package ships;
#   svg:        xmllint, then chromium (playwright-core): zoom, search,
#               colours, screenshot.
# Needs `make test-deps` (tests/deps/apt.formats, tests/deps/setup-node.sh).
set -u
. "$(dirname "$0")/lib.sh"
cd "$TOP"

NODE_DIR=$TOP/tests/node
OUT=$TMP/formats
mkdir -p "$OUT"
trap 'cleanup_children; rm -rf "$TMP"' EXIT

need() {
	local missing=()
	for tool in node go protoc xmllint chromium; do
		command -v "$tool" >/dev/null || missing+=("$tool")
	done
	[ -d "$NODE_DIR/node_modules/playwright-core" ] || missing+=("tests/node/node_modules")
	if [ ${#missing[@]} -gt 0 ]; then
		fail "format tools" "missing ${missing[*]}: run make test-deps"
		exit 1
	fi
}

# The unit program make builds (make test builds the unit programs first).
writer() {
	local bin=$TOP/.output/tests/test_export_files
	[ -x "$bin" ] && echo "$bin"
}

need
bin=$(writer) || { fail "build test_export_files" "gcc failed"; exit 1; }
check "write the synthetic profile in every format" "$bin" "$OUT"

# --- folded
(cd "$NODE_DIR" && node check_folded.js "$OUT")
# stackvis reads the older comma-separated form; no fixture frame has a comma.
if ! grep -q , "$OUT/profile.folded" &&
	tr ';' , <"$OUT/profile.folded" |
	node "$NODE_DIR/node_modules/stackvis/cmd/stackvis" collapsed flamegraph-svg \
		>"$OUT/stackvis.svg" 2>"$OUT/stackvis.err" &&
	grep -q 'main.lua:work (80 samples, 66.67%)' "$OUT/stackvis.svg" &&
	grep -q 'luajit (111 samples, 92.50%)' "$OUT/stackvis.svg" &&
	grep -q 'string.rep (10 samples' "$OUT/stackvis.svg"; then
	pass "stackvis renders the folded stacks with their counts"
else
	fail "stackvis renders the folded stacks" "$(head -c 300 "$OUT/stackvis.err")"
fi

# --- pprof
export HOME=$TMP/home GOCACHE=$TMP/gocache GOPATH=$TMP/gopath GOFLAGS=-mod=mod \
	GOTOOLCHAIN=local GOPROXY=off GOTELEMETRY=off
mkdir -p "$HOME"
(cd "$NODE_DIR" && node check_pprof.js "$OUT")

proto=$(dpkg -L golang-github-google-pprof-dev 2>/dev/null | grep '/proto/profile.proto$' | head -1)
if [ -z "$proto" ]; then
	fail "protoc decode" "profile.proto of golang-github-google-pprof-dev not found"
else
	for f in profile lines empty; do
		if gzip -dc "$OUT/$f.pb.gz" | protoc --proto_path="$(dirname "$proto")" \
			--decode=perftools.profiles.Profile profile.proto \
			>"$OUT/$f.txt" 2>"$OUT/$f.err"; then
			pass "protoc decodes $f.pb.gz with pprof's profile.proto"
		else
			fail "protoc decodes $f.pb.gz" "$(head -c 300 "$OUT/$f.err")"
		fi
	done
	d=$OUT/profile.txt
	check "protoc: 11 samples" [ "$(grep -c '^sample {' "$d")" -eq 11 ]
	check "protoc: string_table starts with \"\"" \
		[ "$(grep -m1 '^string_table:' "$d")" = 'string_table: ""' ]
	check "protoc: period" grep -q '^period: 10000000$' "$d"
	check "protoc: one mapping" [ "$(grep -c '^mapping {' "$d")" -eq 1 ]
	check "protoc: the mapping needs no symbols" grep -q 'has_line_numbers: true' "$d"
	# pid, tid, comm each; vmstate but for host; trace, trace_start, 2 zones.
	check "protoc: 47 labels" [ "$(grep -c '^  label {' "$d")" -eq 47 ]
fi

# --- speedscope
(cd "$NODE_DIR" && node check_speedscope.js "$OUT")

# --- svg
for f in profile icicle states empty; do
	if xmllint --noout "$OUT/$f.svg" 2>"$OUT/$f.xmlerr"; then
		pass "xmllint accepts $f.svg"
	else
		fail "xmllint accepts $f.svg" "$(head -c 300 "$OUT/$f.xmlerr")"
	fi
done
# Every frame name, as xmllint parsed it (entities decoded back here).
xmllint --xpath "//*[local-name()='title']/text()" "$OUT/profile.svg" 2>/dev/null |
	sed "s/&lt;/</g; s/&gt;/>/g; s/&quot;/\"/g; s/&apos;/'/g; s/&amp;/\&/g" >"$OUT/titles.txt"
(cd "$NODE_DIR" && node -e '
	const T = require("./truth");
	const names = new Set(["all"]);
	for (const s of T.samples)
		for (const l of T.exportStack(s, { process: true })) names.add(T.svgLabel(l));
	console.log([...names].join("\n"));') >"$OUT/names.txt"
missing=$(grep -vxFf "$OUT/titles.txt" "$OUT/names.txt")
check "xmllint: the SVG holds every frame name ($(wc -l <"$OUT/names.txt"))" [ -z "$missing" ]
[ -z "$missing" ] || echo "missing: $missing"
(cd "$NODE_DIR" && node check_svg.js "$OUT")
