# SPDX-License-Identifier: MIT
# Helpers for shares of folded profiles against truths a workload measured
# in-process (sourced after lib.sh; shared with the kernel matrix's guest).
# shellcheck shell=bash

# fshare FILE PID REGEX [SKIP]: percentage of PID's weight in FILE (folded)
# on lines matching REGEX and not SKIP (PID "-": a profile of one process,
# whose lines have no pid).  [host] time is left out: before
# its VM is found a process is [host], and the in-process clocks start
# later still.
fshare() {
	awk -v pid="$2" -v re="$3" -v skip="${4:-^$}" '
		{ split($0, a, ";"); if ((pid != "-" && a[2] != pid) || $0 ~ /;\[host\] [0-9]+$/) next
		  n = $NF; t += n; if ($0 ~ re && $0 !~ skip) m += n }
		END { printf "%.1f\n", t ? 100 * m / t : -1 }' "$1"
}

# main_pid FOLDED FRAME: the pid field of the first line through FRAME, or
# "-" when the profile has one process (no pid field).
main_pid() { awk -F';' -v f="$2" 'index($0, f) { print ($2 ~ /^[0-9]+$/ ? $2 : "-"); exit }' "$1"; }

# truth FILE PART: the in-process seconds of PART.
truth() { awk -v k="$2" '$1 == "truth" && $2 == k { print $3 }' "$1"; }

# pct A B: A as a percentage of B (-1 when B is 0).
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f\n", (b > 0 ? 100 * a / b : -1) }'; }

# busiest_pid FOLDED SCRIPT: the pid field with the most weight in SCRIPT's
# frames (a workload's forks run it too, until they exec), "-" for a
# profile of one process (no pid field), empty when none.
busiest_pid() {
	awk -F';' -v s=";$2:" 'index($0, s) { if ($2 !~ /^[0-9]+$/) { print "-"; exit }
		n = $NF; sub(/.* /, "", n); w[$2] += n }
		END { for (p in w) if (w[p] > best) { best = w[p]; m = p } if (m != "") print m }' "$1"
}

# agent_until DIR SECS ARGS...: luabpfprof -a --continuous ARGS into DIR,
# ended by SIGINT (which flushes the last, partial interval) once two
# interval files are written, or after SECS: not after a fixed time,
# which an emulated guest can spend on loading the programs.  Its exit.
agent_until() {
	local dir=$1 secs=$2 agent i
	shift 2
	mkdir -p "$dir"
	timeout -s INT "$secs" "$PROF" -a --continuous "$@" --out-dir "$dir" &
	agent=$!
	for ((i = 0; i < secs * 10; i++)); do
		[ "$(find "$dir" -name '*.pb.gz' | wc -l)" -ge 2 ] && break
		kill -0 "$agent" 2>/dev/null || break
		sleep 0.1
	done
	kill -INT "$agent" 2>/dev/null
	wait "$agent"
}

# intervals_naming DIR RE: how many of DIR's interval files (pprof, read
# back by tests/pprof_folded.py) have a stack matching RE.
intervals_naming() {
	local n=0 f
	for f in "$1"/*.pb.gz; do
		[ -f "$f" ] && python3 "$TOP/tests/pprof_folded.py" "$f" 2>/dev/null | grep -q "$2" && n=$((n + 1))
	done
	echo "$n"
}
