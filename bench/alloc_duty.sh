#!/bin/bash
# SPDX-License-Identifier: MIT
# -e alloc at its default (the allocator probe attached for random windows
# adding up to 3% of the time, user/sample/alloc_gate.c) against the same
# run's baseline, and its shares against the always-on probe's.  Prints a
# markdown section on stdout.  bench/workloads/tables.lua, windows of T s
# in one process (the bench protocol, common.lua), REPS pairs alternating
# without and with the profiler; throughput per CPU second of the target.
# The profiles of the REPS profiled windows are summed (REPS * T seconds,
# 60 by default) and their shares of records/render/patterns compared
# with one --alloc-exact window's.
#   bench/alloc_duty.sh [REPS] [T]
set -u
cd "$(dirname "$0")/.."
source bench/lib.sh
REPS=${1:-4}
T=${2:-15}
PROF=${PROF:-./luabpfprof}
LUAJIT=${LUAJIT:-tests/bin/luajit}	# .deps/luajit-deb, never an installed one
WORK=$(mktemp -d /tmp/lbp-allocduty.XXXXXX)
pids=()

cleanup() {
	kill "${pids[@]}" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT

# shares FOLDED: "records render patterns" percentages of the bytes.
shares() {
	awk '{ for (k = 1; k <= 3; k++) if (index($0, ph[k])) { b[k] += $NF; t += $NF; next } }
		BEGIN { ph[1] = "tables.lua:records"; ph[2] = "tables.lua:render"; ph[3] = "tables.lua:patterns" }
		END { for (k = 1; k <= 3; k++) printf "%.1f ", t ? 100 * b[k] / t : -1; print "" }' "$@"
}

workload_start tables || exit 1
for ((i = 0; i < REPS; i++)); do
	workload_window >> "$WORK/base"
	prof_start 'sampling allocations at' -e alloc -f folded -o "$WORK/duty$i.folded" -p "$TPID" &&
		{ workload_window >> "$WORK/duty"; alloc_detach; grep -o 'attached, [0-9.]*%' "$WORK/prof.err" >> "$WORK/dutypct"; }
done
prof_start 'sampling allocations at' -e alloc --alloc-exact -f folded -o "$WORK/exact.folded" -p "$TPID" &&
	{ workload_window >> "$WORK/exact"; alloc_detach; }
echo quit >&3
exec 3>&-

read -r dr dn dp < <(shares "$WORK"/duty*.folded)
read -r er en ep < <(shares "$WORK/exact.folded")
samples=$(cat "$WORK"/duty*.folded | awk '{ n += $NF } END { print n + 0 }')
loss=""
paste "$WORK/base" "$WORK/duty" > "$WORK/pairs"
while read -r b d; do loss+=" $(awk -v b="$b" -v d="$d" 'BEGIN { printf "%+.1f", 100 * (1 - d / b) }')"; done < "$WORK/pairs"
cat <<EOT

## 12. -e alloc at its default (3% duty cycle): cost and shares

\`bench/alloc_duty.sh $REPS $T\`: bench/workloads/tables.lua, $REPS pairs of ${T} s windows without and with
\`-e alloc\` (default: the probe attached for random 25-75 ms windows adding up to 3% of the
time), alternating in one process; rounds per CPU second of the target. Then one ${T} s window
under \`--alloc-exact\` for the shares.

| figure | value | target |
|---|---|---|
| tables.lua throughput lost, per pair | $loss % (median $(tr ' ' '\n' <<< "$loss" | grep . | median)%) | ≤ 5% |
| baseline / with -e alloc, rounds per CPU s (median) | $(median < "$WORK/base") / $(median < "$WORK/duty") | – |
| probe attached (each window's summary) | $(sed 's/attached, //' "$WORK/dutypct" | tr '\n' ' ') | 3% asked |
| shares of the bytes over $((REPS * T)) s, default: records / render / patterns | $dr / $dn / $dp % ($samples samples) | within 3 points of --alloc-exact |
| shares under --alloc-exact ($T s) | $er / $en / $ep % | – |

Runs (rounds per CPU s): without: $(tr '\n' ' ' < "$WORK/base"); with: $(tr '\n' ' ' < "$WORK/duty"); --alloc-exact: $(cat "$WORK/exact").
EOT
