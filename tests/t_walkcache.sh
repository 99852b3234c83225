#!/bin/bash
# SPDX-License-Identifier: MIT
# The walker's per-CPU caches (bpf/walkcache.bpf.h) under churn: chunks
# loaded, run and dropped thousands of times a second, so that functions,
# prototypes and call sites of one generation take the memory of earlier
# ones while the caches hold them (tests/workloads/churn_calls.lua).  Every
# named stack must pair outer and inner of the same generation, outer right
# below inner; no frame may be bad.  Then the caches must have served: a
# deep steady stack is resolved mostly from them (-v's "cached reads").
source "$(dirname "$0")/lib.sh"
source "$TOP/tests/variants.sh"
trap 'cleanup_children; rm -rf "$TMP"' EXIT

# churn LABEL: profiles churn_calls.lua on variant LABEL and checks its stacks.
churn() {
	local label=$1 out=$TMP/$1.folded err=$TMP/$1.err
	start_bg variant_exec "$label" "$WL/churn_calls.lua" 60
	wait_lua "$BGPID"
	"$PROF" -p "$BGPID" -F 999 -d 5 -f folded -o "$out" 2>"$err"
	kill "$BGPID" 2>/dev/null
	# Per stack: its cc frames in order (file:function), root first.
	awk -v badlog="$TMP/$label.bad" '
		{
			n = split($1, f, ";"); w = $2; cc = ""; ncc = 0
			for (i = 1; i <= n; i++)
				if (f[i] ~ /^cc[0-9]+\.lua:/) { ncc++; g[ncc] = f[i] }
			if (!ncc) next
			total += w
			ok = 0
			if (ncc == 2) {
				split(g[1], a, ":"); split(g[2], b, ":")
				ok = a[1] == b[1] && a[2] == "outer" && b[2] == "inner"
			} else if (ncc == 1) {
				# The chunk itself (defining inner and outer: "0", or
				# named after its call) or outer alone (between calls);
				# inner alone lost its caller.
				split(g[1], a, ":"); ok = a[2] != "inner"
			}
			if (ok) good += w
			else { bad += w; print > badlog }
			if (ncc == 2 && ok) pairs += w
		}
		END { printf "%d %d %d\n", total, good, pairs }' "$out" >"$TMP/$label.counts"
	read -r total good pairs <"$TMP/$label.counts"
	check "$label: churned generations sampled with both frames named (${pairs:-0} >= 100 samples)" \
		[ "${pairs:-0}" -ge 100 ]
	check "$label: every named stack pairs outer and inner of one generation ($good of $total; wrong: $(head -c 300 "$TMP/$label.bad" 2>/dev/null | tr '\n' '|'))" \
		[ "${total:-0}" -gt 0 -a "${good:-0}" -eq "${total:-0}" ]
	# The walker without caches also meets the odd frame being torn down
	# (about one a run here): a cache trusted wrongly would make many.
	local walked=$(tail -1 "$err" | sed -n 's/.* \([0-9]*\) samples in .*/\1/p')
	local broken=$(tail -1 "$err" | awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^(frame|fault),?$/ && ($(i - 1) == "bad" || $(i - 1) == "read")) n += $(i - 2) } END { print n + 0 }')
	check "$label: bad frames and read faults at most 0.2% of samples ($broken of $walked)" \
		[ "$((broken * 500))" -le "${walked:-0}" ]
}

for label in deb-bin "${NOGC64_VARIANTS[@]:0:1}"; do
	[ -n "$label" ] && churn "$label"
done

# A steady deep stack: after the first samples, frames come from the caches.
start_bg "$LUAJIT" "$TOP/bench/workloads/depth.lua" 40
wait_lua "$BGPID"
"$PROF" -p "$BGPID" -F 999 -d 2 -f folded -o "$TMP/depth.folded" -v 2>"$TMP/depth.err"
kill "$BGPID" 2>/dev/null
frames=$(sort -k2 -n -r -t' ' "$TMP/depth.folded" | head -1 | awk '{print split($1, f, ";") - 1}')
check "depth 40: the whole stack is walked (most frequent stack: $frames frames)" [ "$frames" = 39 ]
# -v's walk line counts the reads the caches saved: at least one per frame
# below the top, per sample (a frame met before saves two: its caller's
# frame size and its chunk name's string id).
samples=$(tail -1 "$TMP/depth.err" | sed -n 's/.* \([0-9]*\) samples in .*/\1/p')
cached=$(sed -n 's/^luabpfprof: walk: .* \([0-9]*\) cached reads\(,.*\)\{0,1\}$/\1/p' "$TMP/depth.err")
check "depth 40: the caches served (${cached:-no} cached reads in ${samples:-no} samples, >= 38 a sample)" \
	[ "${samples:-0}" -gt 0 -a "${cached:-0}" -ge $((${samples:-0} * 38)) ]
