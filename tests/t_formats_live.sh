#!/bin/bash
# SPDX-License-Identifier: MIT
# Formats from a real profile: luabpfprof attached to a running 6:3:1
# workload writes pprof, folded, SVG and speedscope next to the text view;
# the real readers must agree with the text view's shares.
source "$(dirname "$0")/lib.sh"

HZ=499
SECS=2.5
NODE_DIR=$TOP/tests/node
export HOME=$TMP GOCACHE=$TMP/gocache GOPATH=$TMP/gopath GOFLAGS=-mod=mod GOTOOLCHAIN=local
export PPROF_TOOLS= PPROF_BINARY_PATH=/nonexistent

start_bg "$LUAJIT" "$WL/w631.lua" 60
pid=$BGPID
wait_lua "$pid"
waits=()
for out in p.pb.gz p.folded p.svg p.speedscope.json; do
	"$PROF" -p "$pid" -d "$SECS" -F "$HZ" -o "$TMP/$out" 2>"$TMP/$out.err" &
	waits+=($!)
done
"$PROF" -p "$pid" -d "$SECS" -F "$HZ" --jp F >"$TMP/text" 2>"$TMP/text.err"
wait "${waits[@]}"
kill "$pid"

# Two profilers of the same target, each its own sample: a share may differ
# by 3.5 sigma of the difference of two binomial estimates, plus 1 for
# rounding (at least 5).  A loaded machine leaves the target few samples.
nt=$(sed -n 's/^luabpfprof: \([0-9][0-9]*\) samples in .*/\1/p' "$TMP/text.err")
tol2() {	# tol2 SHARE N1 N2
	awk -v p="${1:-0}" -v a="${2:-1}" -v b="${3:-1}" 'BEGIN { p /= 100
		if (p < 0.05) p = 0.05; if (p > 0.95) p = 0.95; if (a < 1) a = 1; if (b < 1) b = 1
		t = 3.5 * 100 * sqrt(p * (1 - p) * (1 / a + 1 / b)) + 1; t = int(t) + 1
		print t < 5 ? 5 : t }'
}

# pprof: go tool pprof reads it; -top's flat shares match the text view.
if go tool pprof -raw "$TMP/p.pb.gz" >"$TMP/raw" 2>"$TMP/raw.err"; then
	pass "live pprof: go tool pprof -raw reads the file"
else
	fail "live pprof: go tool pprof -raw" "$(head -c 300 "$TMP/raw.err")"
fi
go tool pprof -top -nodecount=20 "$TMP/p.pb.gz" >"$TMP/top" 2>"$TMP/top.err"
np=$(sed -n 's/^luabpfprof: \([0-9][0-9]*\) samples in .*/\1/p' "$TMP/p.pb.gz.err")
for f in a b c; do
	want=$(share "$TMP/text" "w631.lua:$f")
	got=$(awk -v k="w631.lua:$f" '$NF == k { v = $2; sub(/%/, "", v); printf "%.0f\n", v }' "$TMP/top")
	t=$(tol2 "$want" "$np" "$nt")
	margin "live pprof: -top flat share of w631.lua:$f against the text view" "$got" "$want" "$t"
	check "live pprof: -top flat share of w631.lua:$f (${got}%) matches the text view (${want}% ±$t)" \
		near "$got" "$want" "$t"
done

# folded: parsed back, the leaf shares match the text view.
total=$(awk '{ s += $NF } END { print s }' "$TMP/p.folded")
for f in a b c; do
	want=$(share "$TMP/text" "w631.lua:$f")
	got=$(awk -v k="w631.lua:$f" -v t="$total" '{ n = $NF; sub(/ [0-9]+$/, "")
		m = split($0, fr, ";"); if (fr[m] == k) s += n }
		END { if (t) printf "%.0f\n", 100 * s / t }' "$TMP/p.folded")
	t=$(tol2 "$want" "$total" "$nt")
	margin "live folded: leaf share of w631.lua:$f against the text view" "$got" "$want" "$t"
	check "live folded: leaf share of w631.lua:$f (${got}%) matches the text view (${want}% ±$t)" \
		near "$got" "$want" "$t"
done
check "live folded: the process name is the root frame" \
	bash -c "awk '{ split(\$0, fr, \";\"); print fr[1] }' '$TMP/p.folded' | sort -u | grep -qx luajit"
tr ';' , <"$TMP/p.folded" |
	node "$NODE_DIR/node_modules/stackvis/cmd/stackvis" collapsed flamegraph-svg \
		>"$TMP/stackvis.svg" 2>"$TMP/stackvis.err"
check "live folded: stackvis renders it" grep -q 'w631.lua:a' "$TMP/stackvis.svg"

# svg: valid XML with the Lua frames, then zoom and search in chromium;
# speedscope against its schema.
check "live svg: xmllint accepts it" xmllint --noout "$TMP/p.svg"
(cd "$NODE_DIR" && node check_live.js "$TMP" w631.lua:a)

cleanup_children
