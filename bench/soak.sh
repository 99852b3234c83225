#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/soak.sh [-m MINUTES] [-w WARMUP_S] [-i SAMPLE_S] [-p PID[,PID...]] [-o DIR]
#
# Soak test (not run by CI): luabpfprof runs for MINUTES (default 30) as a
# node agent against churning workloads while its memory and descriptors
# are sampled every SAMPLE_S seconds (default 5).
#
#   default   `-a --continuous`: every LuaJIT process on the host.  The script
#             starts tests/workloads/churn.lua (closures made and dropped with
#             load() at a high rate, so prototypes are freed and reused all the
#             time) and a loop that starts a short-lived LuaJIT process every
#             2 s, so processes keep appearing and exiting.
#   -p PIDS   `-p PIDS --continuous` on those processes instead (nothing is
#             started), for when -a is not available.
#
# Passes when, after WARMUP_S seconds (default: a sixth of the run, at least
# 60), RSS stays within +-10% of its median, the open file descriptors other
# than pidfds are constant (there is one pidfd per profiled process, and
# processes come and go), and luabpfprof is still running at the end and
# exits 0 on SIGINT.  Samples go to
# DIR/soak.csv (default: a new directory under /tmp), with the profiler's
# log and its rolling profile files; whenever the count of descriptors
# other than pidfds changes, DIR/fds-at-Ns.txt lists them by kind.  Needs
# root and `make`.
set -u
cd "$(dirname "$0")/.."
TOP=$PWD
PROF=${PROF:-$TOP/luabpfprof}
LUAJIT=${LUAJIT:-$TOP/tests/bin/luajit}	# .deps/luajit-deb, never an installed one
WL=$TOP/tests/workloads

minutes=30 warmup= every=5 pids= dir=
while getopts "m:w:i:p:o:" c; do
	case $c in
	m) minutes=$OPTARG ;;
	w) warmup=$OPTARG ;;
	i) every=$OPTARG ;;
	p) pids=$OPTARG ;;
	o) dir=$OPTARG ;;
	*) sed -n '2,3p' "$0" >&2; exit 2 ;;
	esac
done
[ -x "$PROF" ] || { echo "soak: build first (make)" >&2; exit 2; }
if [ -z "$warmup" ]; then
	warmup=$((minutes * 10))
	[ "$warmup" -lt 60 ] && warmup=60
fi
dir=${dir:-$(mktemp -d /tmp/lbp-soak.XXXXXX)}
mkdir -p "$dir/profiles"
csv=$dir/soak.csv
kids=()

cleanup() {
	local p
	[ -n "${churner:-}" ] && kill "$churner" 2>/dev/null
	for p in "${kids[@]}"; do kill "$p" 2>/dev/null; done
	[ -n "${prof:-}" ] && kill -INT "$prof" 2>/dev/null
	wait 2>/dev/null
}
trap cleanup EXIT

if [ -z "$pids" ]; then
	"$LUAJIT" "$WL/churn.lua" >/dev/null 2>&1 &
	kids+=($!)
	# Processes that come and go: -a adds and drops them.
	(while :; do "$LUAJIT" "$WL/w631.lua" 0.3 >/dev/null 2>&1; sleep 2; done) &
	churner=$!
	sleep 1
	target=(-a)
else
	target=(-p "$pids")
fi

"$PROF" "${target[@]}" --continuous --every 10 --out-dir "$dir/profiles" --retain-count 20 \
	>"$dir/luabpfprof.out" 2>"$dir/luabpfprof.log" &
prof=$!
echo "soak: luabpfprof PID $prof (${target[*]}), $minutes min, samples every ${every}s -> $dir" >&2

echo "seconds,rss_kib,fds,pidfds" >"$csv"
end=$((SECONDS + minutes * 60))
start=$SECONDS
while [ $SECONDS -lt $end ]; do
	if ! kill -0 "$prof" 2>/dev/null; then
		echo "soak: FAIL: luabpfprof exited early; its log:" >&2
		tail -5 "$dir/luabpfprof.log" >&2
		exit 1
	fi
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$prof/status")
	# One listing for both counts: a profiled process that exits between
	# two listings would pass for a descriptor that is not a pidfd.  A
	# count that changed is read again a few times and the lowest kept:
	# files are opened for a moment (/proc reads, profile writes), a leak
	# stays.
	for try in 1 2 3 4; do
		list=$(ls -l "/proc/$prof/fd" 2>/dev/null | awk 'NR > 1 { print $NF }')
		n=$(printf '%s\n' "$list" | grep -c .)
		p=$(printf '%s\n' "$list" | grep -c pidfd)
		if [ "$try" = 1 ] || [ "$((n - p))" -lt "$((fds - pidfds))" ]; then
			fdlist=$list fds=$n pidfds=$p
		fi
		[ "$((fds - pidfds))" = "${last_other:-$((fds - pidfds))}" ] && break
		sleep 0.1
	done
	echo "$((SECONDS - start)),$rss,$fds,$pidfds" >>"$csv"
	# Keep what the descriptors were whenever their count changes, so that
	# a failure says which kind came or went.
	if [ "$((fds - pidfds))" != "${last_other:-}" ]; then
		printf '%s\n' "$fdlist" | sed 's/[0-9][0-9]*/N/g' | sort | uniq -c \
			>"$dir/fds-at-$((SECONDS - start))s.txt"
		last_other=$((fds - pidfds))
	fi
	sleep "$every"
done

kill -INT "$prof"
wait "$prof"
rc=$?
prof=

# RSS within +-10% of the median after warm-up; descriptors constant
# (plain awk: Debian's default is mawk).
awk -F, -v warm="$warmup" 'NR > 1 && $1 >= warm' "$csv" | sort -t, -k2,2n |
awk -F, -v warm="$warmup" -v rc="$rc" -v minutes="$minutes" '
	{ rss[++n] = $2; o = $3 - $4
	  if (n == 1 || o < fmin) fmin = o; if (n == 1 || o > fmax) fmax = o
	  if (n == 1 || $4 < pmin) pmin = $4; if (n == 1 || $4 > pmax) pmax = $4 }
	END {
		if (n < 3) { print "soak: FAIL: too few samples after warm-up"; exit 1 }
		med = rss[int((n + 1) / 2)]
		lo = (rss[1] - med) * 100 / med; hi = (rss[n] - med) * 100 / med
		ok = lo >= -10 && hi <= 10 && fmin == fmax && rc == 0
		printf "soak: %s min, %d samples after %ss warm-up: RSS median %d KiB, %+.1f%% .. %+.1f%% (limit +-10%%); fds besides pidfds %d..%d, pidfds %d..%d; exit %d: %s\n",
			minutes, n, warm, med, lo, hi, fmin, fmax, pmin, pmax, rc, ok ? "PASS" : "FAIL"
		exit !ok
	}'
status=$?
tail -1 "$dir/luabpfprof.log" >&2
exit $status
