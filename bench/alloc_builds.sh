#!/bin/bash
# SPDX-License-Identifier: MIT
# -e alloc's cost on every LuaJIT build the suite has: where the breakpoint
# went in the allocator (-v's "allocator ... probed" line) and the target's
# slowdown on tests/workloads/alloc.lua (nothing but small tables, the
# worst case), MiB allocated per CPU second without and with the probe,
# median of REPS alternating runs.  Prints a markdown table on stdout.
#   bench/alloc_builds.sh [REPS]
set -u
cd "$(dirname "$0")/.."
export TOP=$PWD
source bench/lib.sh
source tests/variants.sh
REPS=${1:-3}
PROF=${PROF:-./luabpfprof}
WORK=$(mktemp -d /tmp/lbp-allocbuilds.XXXXXX)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"' EXIT

# run_build NAME LAUNCH...: one row.
run_build() {
	local label=$1 base probed place
	shift
	: > "$WORK/base"; : > "$WORK/probed"
	for ((i = 0; i < REPS; i++)); do
		alloc_micro 64 0 "$@" >> "$WORK/base"
		if alloc_micro 8 1 "$@" >> "$WORK/probed" && [ -s "$WORK/probed" ]; then
			place=$(grep -o 'probed .*' "$WORK/prof.err" | head -1)
		else
			place="not probed: $(grep -aoE 'allocations not sampled: .*|LuaJIT layout not recognised|no LuaJIT VM found' \
				"$WORK/prof.err" | head -1)"
			break
		fi
	done
	base=$(median < "$WORK/base"); probed=$(median < "$WORK/probed")
	awk -v l="$label" -v b="$base" -v p="${probed:-0}" -v w="$place" \
		'BEGIN { printf "| %s | %s | %.0f | %.1f | %s |\n", l, w, b, p,
			 (p > 0 ? sprintf("%.0fx", b / p) : "-") }'
}

echo "| build | breakpoint | MiB/CPU-s without | with -e alloc | slowdown |"
echo "|---|---|---|---|---|"
for label in ${ONLY:-"${VARIANTS[@]}" "${NOGC64_VARIANTS[@]}"}; do
	run_build "$label" variant_exec "$label"
done
[ -x .deps/luajit-deb-nojit/usr/bin/luajit ] &&
	run_build deb-nojit-bin .deps/luajit-deb-nojit/usr/bin/luajit
command -v tarantool >/dev/null && run_build tarantool tarantool
