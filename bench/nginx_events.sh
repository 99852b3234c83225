#!/bin/bash
# SPDX-License-Identifier: MIT
# -e off-cpu and -e alloc at their defaults on nginx + Lua under wrk: the
# test server of tests/nginx/nginx.conf.in (two workers, handler.lua's
# /work), REPS pairs of SECS-second wrk runs without and with the profiler
# on both workers, alternating, each pair's loss of requests per second
# against the run just before.  Prints a markdown section on stdout.
#   bench/nginx_events.sh [REPS] [SECS]
set -u
cd "$(dirname "$0")/.." || exit 1
TOP=$PWD
source tests/lib.sh
source tests/nginx/lib.sh
REPS=${1:-3}
SECS=${2:-5}
RUN=$TMP/nginx
trap 'cleanup_children; rm -rf "$TMP"' EXIT

start_nginx || { echo "nginx did not start: $(tail -n 2 "$RUN/error.log")" >&2; exit 1; }
W=${WORKERS[0]},${WORKERS[1]}
rps() { wrk -t2 -c8 -d"${SECS}s" "http://127.0.0.1:$PORT/work" 2>/dev/null | awk '/^Requests\/sec/ { print $2 }'; }
rps > /dev/null	# warm: the handler is compiled

# pairs NAME PROFILER-OPTIONS...: REPS pairs; losses in NAME.loss, the
# requests per second in NAME.runs, the last summary in NAME.sum.
pairs() {
	local name=$1 b p lbp err; shift
	for ((i = 0; i < REPS; i++)); do
		b=$(rps)
		err=$TMP/$name.$i.err
		"$PROF" -v "$@" -p "$W" -f folded -o "$TMP/$name.folded" 2> "$err" &
		lbp=$!
		wait_for "$err" 'sampling: every program attached' 30 || { kill "$lbp"; return 1; }
		p=$(rps)
		kill -INT "$lbp"; wait "$lbp"
		echo "$b $p" >> "$TMP/$name.runs"
		awk -v b="$b" -v p="$p" 'BEGIN { printf "%+.1f\n", 100 * (1 - p / b) }' >> "$TMP/$name.loss"
		grep -h 'switches out\|e alloc:' "$err" | sed 's/^luabpfprof: //' > "$TMP/$name.sum"
	done
}
pairs offcpu -e off-cpu
pairs alloc -e alloc
med() { sort -g "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
cat <<EOT

## 13. nginx + Lua under wrk: -e off-cpu and -e alloc at their defaults

\`bench/nginx_events.sh $REPS $SECS\`: tests/nginx/nginx.conf.in (two workers, OpenResty's LuaJIT),
\`wrk -t2 -c8 -d${SECS}s /work\`, $REPS pairs of runs without and with the profiler on both
workers, alternating; loss of requests per second against the run just before.

| profiler | loss per pair | median | target |
|---|---|---|---|
| \`-e off-cpu\` (auto rate) | $(tr '\n' ' ' < "$TMP/offcpu.loss")% | $(med "$TMP/offcpu.loss")% | ≤ 3% |
| \`-e alloc\` (3% duty) | $(tr '\n' ' ' < "$TMP/alloc.loss")% | $(med "$TMP/alloc.loss")% | ≤ 5% |

Runs (requests/s, without with): off-cpu: $(tr '\n' ';' < "$TMP/offcpu.runs") alloc: $(tr '\n' ';' < "$TMP/alloc.runs")
Last summaries: $(cat "$TMP/offcpu.sum" "$TMP/alloc.sum" | tr '\n' ' ')
EOT
