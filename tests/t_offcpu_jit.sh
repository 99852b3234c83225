#!/bin/bash
# SPDX-License-Identifier: MIT
# Off-CPU time with the JIT on: offcpu_jit.lua alternates burn() (CPU)
# with naps(), a hot loop of FFI usleep calls that is compiled, so each
# block happens in C called from a trace.  On both LuaJIT builds:
#   - the block sits under the calling Lua function: naps, with the
#     [Compiled] VM state (--vmstate-frames: the walk went through the
#     trace's snapshot, not the interpreter);
#   - in a wall profile naps' and burn's shares of the time under them
#     match the in-process clocks within TOL points;
#   - in an off-CPU profile all blocked time under them is under naps;
#   - at most MAX_OUTSIDE% of either profile lies elsewhere.
# Not covered: a block in a C function called from a function that a
# trace inlined into its caller's loop (t_offcpu.sh's nap() under -jon)
# is charged to the caller at the call's line: LuaJIT takes no snapshot
# inside such a callee (its guards reuse the snapshot before the call),
# so no frame of it exists while the trace runs.
set -uo pipefail
source "$(dirname "$0")/lib.sh"

SECS=3
TOL=3
HZ=997
declare -A LJ=([deb]="$TOP/.deps/luajit-deb" [or]="$TOP/.deps/luajit2")

source "$TOP/tests/truth.sh"	# truth FILE PART, pct A B
# The truth times burn and naps only, so shares are taken among the
# stacks under them; the rest is the script's set-up and its own loop
# (and [host] lines: before the VM is found), bounded separately.
PARTS=';offcpu_jit\.lua:(naps|burn);'
MAX_OUTSIDE=10
# fshare FILE REGEX: percentage of the weight under PARTS on lines matching REGEX.
fshare() {
	awk -v re="$2" -v parts="$PARTS" '$0 ~ parts { n = $NF; t += n; if ($0 ~ re) m += n }
		END { printf "%.1f\n", t ? 100 * m / t : -1 }' "$1"
}
# outside FILE: checks that at most MAX_OUTSIDE% of the weight lies
# outside PARTS; past 2% it names the three heaviest such stacks.
outside() {
	local share
	share=$(awk -v parts="$PARTS" '/;\[host\]( |;)/ { next } { t += $NF } $0 !~ parts { m += $NF }
		END { printf "%.1f\n", t ? 100 * m / t : -1 }' "$1")
	margin "$2: share outside burn and naps (at most)" "$share" 0 "$MAX_OUTSIDE"
	check "$2: at most $MAX_OUTSIDE% outside burn and naps (got $share%)" \
		awk -v s="$share" -v m="$MAX_OUTSIDE" 'BEGIN { exit !(s >= 0 && s <= m) }'
	awk -v s="$share" 'BEGIN { exit !(s > 2) }' || return 0
	awk -v parts="$PARTS" '/;\[host\]( |;)/ { next } { t += $NF } $0 !~ parts { w[$0] = $NF }
		END { for (k in w) printf "%.1f%% %s\n", 100 * w[k] / t, k }' "$1" |
		sort -rn | head -3 | sed 's/^/  outside: /'
}

for v in deb or; do
	tree=${LJ[$v]}
	[ -x "$tree/usr/bin/luajit" ] || { echo "SKIP: $v LuaJIT not set up"; continue; }
	for ev in wall off-cpu; do
		n=$ev-$v
		"$PROF" -e "$ev" -F "$HZ" --vmstate-frames -f folded -o "$TMP/$n.folded" -- \
			env LUA_PATH="$tree/usr/share/luajit-2.1.0-beta3/?.lua;;" "$tree/usr/bin/luajit" \
			"$WL/offcpu_jit.lua" "$SECS" >"$TMP/$n.out" 2>"$TMP/$n.err"
		total=$(truth "$TMP/$n.out" total)
		if [ -z "$total" ] || ! grep -q 'offcpu_jit.lua:naps' "$TMP/$n.folded"; then
			fail "$n runs" "no truth or no profile: $(tr '\n' '|' < "$TMP/$n.err")"
			continue
		fi
		# (the C function the trace called, usleep's clock_nanosleep,
		# between them: issue 26)
		check "$n: blocks in C called from a trace sit under naps ([Compiled])" \
			grep -Eq ';offcpu_jit\.lua:naps;([^;]*sleep;)?\[Compiled\] [0-9]' "$TMP/$n.folded"
		if [ "$ev" = wall ]; then
			timed=$(awk -v a="$(truth "$TMP/$n.out" burn)" -v b="$(truth "$TMP/$n.out" naps)" \
				'BEGIN { print a + b }')
			for part in naps burn; do
				within "$n: $part's share of elapsed time" \
					"$(fshare "$TMP/$n.folded" ";offcpu_jit\\.lua:$part;")" \
					"$(pct "$(truth "$TMP/$n.out" $part)" "$timed")"
			done
			outside "$TMP/$n.folded" "$n"
		else
			grep -v 'waiting for a CPU' "$TMP/$n.folded" >"$TMP/$n.blocked"
			within "$n: blocked time under naps" \
				"$(fshare "$TMP/$n.blocked" ';offcpu_jit\.lua:naps;')" 100
			outside "$TMP/$n.blocked" "$n"
		fi
	done
done
