#!/bin/bash
# SPDX-License-Identifier: MIT
# Runs the suite: the unit programs and the shell tests, as jobs scheduled
# side by side.  Every test prints "PASS: name" or "FAIL: name: why"
# ("SKIP: name: why" for what this machine cannot run); the last line is
# the tally.
#
#   tests/run.sh [-j N] [NAME...]
#
# NAME runs the jobs whose name contains it (t_views, test_json, kernel:5.10).
# -j N (default: the CPUs, LBP_JOBS) jobs at once.  What each job needs and
# how long it usually takes is its row in tests/schedule: a job that needs
# the machine to itself runs alone, a kernel guest counts against
# LBP_GUESTS (default 2) guests at once, and jobs that hold the same lock
# never overlap.  A job that runs past twice its usual time is a hang: its
# processes' states are printed, it is ended, and it fails.
set -u
cd "$(dirname "$0")/.."
export TOP=$PWD

JOBS=${LBP_JOBS:-$(nproc)}
GUESTS=${LBP_GUESTS:-2}
# LBP_TESTDIR: another folder of t_*.sh, schedule and kernels/matrix (the
# scheduler's own test, t_scheduler); it runs no unit program.
TESTDIR=${LBP_TESTDIR:-tests}
SCHEDULE=$TESTDIR/schedule
filters=()
while [ $# -gt 0 ]; do
	case $1 in
	-j)	JOBS=$2; shift 2 ;;
	-j*)	JOBS=${1#-j}; shift ;;
	*)	filters+=("$1"); shift ;;
	esac
done
[[ $JOBS =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: -j takes a positive number, not '$JOBS'" >&2; exit 2; }

OUTDIR=$(mktemp -d /tmp/lbp-run.XXXXXX)
trap 'rm -rf "$OUTDIR"' EXIT

# --- The jobs ---------------------------------------------------------------
# A job is a name and a command: "test_NAME" runs the unit program
# .output/tests/test_NAME, "t_NAME" runs tests/t_NAME.sh, "kernel:PKG"
# boots one kernel of the matrix.

declare -A usual needs cmd
names=()
add_job() { names+=("$1"); cmd[$1]=$2; }

if [ "$TESTDIR" = tests ]; then
	for b in .output/tests/test_*; do
		[ -x "$b" ] && add_job "${b##*/}" "$b"
	done
fi
for t in "$TESTDIR"/t_*.sh; do
	[ -f "$t" ] || continue
	n=${t##*/}; n=${n%.sh}
	[ "$n" = t_kernels ] && continue
	add_job "$n" "bash $t"
done
if [ -f "$TESTDIR/kernels/matrix" ]; then
	while read -r pkg _; do
		add_job "kernel:${pkg#linux-image-}" "LBP_KERNELS=$pkg bash $TESTDIR/t_kernels.sh"
	done < <(grep -v '^#' "$TESTDIR/kernels/matrix" | grep .)
fi

while read -r n u need; do
	case $n in ''|'#'*) continue ;; esac
	usual[$n]=$u needs[$n]=$need
done <"$SCHEDULE"

passed=0 failed=0 skipped=0
# tally LOG: counts its PASS/FAIL/SKIP lines.
tally() {
	local p f s
	p=$(grep -c '^PASS: ' "$1") f=$(grep -c '^FAIL: ' "$1") s=$(grep -c '^SKIP: ' "$1")
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
}

selected() {
	local f
	[ ${#filters[@]} -eq 0 ] && return 0
	for f in "${filters[@]}"; do [[ $1 == *"$f"* ]] && return 0; done
	return 1
}

# has NEED JOB: whether the job's needs name NEED (alone, guest, lock=X).
has() { [[ ",${needs[$2]}," == *",$1,"* ]]; }

queue=()
for n in "${names[@]}"; do
	selected "$n" || continue
	# A unit program is quick and needs nothing: no row of its own.
	[[ $n == test_* ]] && [ -z "${usual[$n]+x}" ] && usual[$n]=30 needs[$n]=-
	if [ -z "${usual[$n]+x}" ]; then
		echo "FAIL: schedule: $n has no row in $SCHEDULE (its usual time and needs)"
		failed=$((failed + 1))
		usual[$n]=600 needs[$n]=alone
	fi
	queue+=("$n")
done
# The jobs that share the machine first, longest first, so that the last
# to end is a short one; then those that need it alone, one by one.
mapfile -t queue < <(for n in "${queue[@]}"; do
	has alone "$n" && a=1 || a=0
	echo "$a ${usual[$n]} $n"
done | sort -k1,1n -k2,2nr -k3 | cut -d' ' -f3)

# --- Running, watching, reporting -------------------------------------------

declare -A started pidof
running=()
times=()

can_start() {
	local n=$1 r guests=0 l
	[ ${#running[@]} -ge "$JOBS" ] && return 1
	has alone "$n" && [ ${#running[@]} -gt 0 ] && return 1
	for r in "${running[@]}"; do
		has alone "$r" && return 1
		has guest "$r" && guests=$((guests + 1))
		for l in ${needs[$n]//,/ }; do
			[[ $l == lock=* ]] && has "$l" "$r" && return 1
		done
	done
	has guest "$n" && [ "$guests" -ge "$GUESTS" ] && return 1
	return 0
}

start() {
	local n=$1 log=$OUTDIR/$1.log
	started[$n]=$SECONDS
	# Each job leads its own session, so that a hang's processes can be
	# listed and ended together; the wrapper keeps its exit status.
	(
		setsid bash -c "${cmd[$n]}" >"$log" 2>&1 </dev/null &
		echo $! >"$log.pid"
		wait $!
		echo $? >"$log.rc"
	) &
	pidof[$n]=$!
	running+=("$n")
}

# states SID: every process of the session, its state and what it waits in.
states() {
	local p
	for p in $(pgrep -s "$1"); do
		ps -o pid=,ppid=,stat=,wchan:24=,etimes=,args= -p "$p" 2>/dev/null | cut -c1-200
		if grep -qs '^State:[[:space:]]*D' "/proc/$p/status"; then
			sed 's/^/        /' "/proc/$p/stack" 2>/dev/null
		fi
	done | sed 's/^/    hang: /'
}

end_hung() {
	local n=$1 log=$OUTDIR/$1.log sid
	sid=$(cat "$log.pid" 2>/dev/null) || return
	{
		echo "FAIL: $n: still running after $((SECONDS - started[$n])) s, twice its usual ${usual[$n]} s: ended; its processes:"
		states "$sid"
	} >>"$log.hang"
	pkill -TERM -s "$sid" 2>/dev/null
	for _ in 1 2 3 4 5; do pgrep -s "$sid" >/dev/null || break; sleep 1; done
	pkill -KILL -s "$sid" 2>/dev/null
}

finish() {
	local n=$1 log=$OUTDIR/$1.log rc t f
	wait "${pidof[$n]}" 2>/dev/null
	rc=$(cat "$log.rc" 2>/dev/null || echo 1)
	t=$((SECONDS - started[$n]))
	[ -f "$log.hang" ] && cat "$log.hang" >>"$log"
	echo "== $n"
	cat "$log"
	echo "time: $n $t s (usual ${usual[$n]} s)"
	f=$(grep -c '^FAIL: ' "$log")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL: $n: exited $rc without reporting a failure" | tee -a "$log"
	fi
	tally "$log"
	grep '^MARGIN: ' "$log" >>"$OUTDIR/margins"
	times+=("$t $n")
}

while [ ${#queue[@]} -gt 0 ] || [ ${#running[@]} -gt 0 ]; do
	# Start what can start, in queue order; a job that must run alone
	# holds back the ones after it, so that it is not starved.
	rest=()
	blocked=0
	for n in "${queue[@]}"; do
		if [ $blocked -eq 0 ] && can_start "$n"; then
			start "$n"
		else
			rest+=("$n")
			has alone "$n" && blocked=1
		fi
	done
	queue=("${rest[@]+"${rest[@]}"}")
	sleep 0.2
	still=()
	for n in "${running[@]}"; do
		if [ -f "$OUTDIR/$n.log.rc" ]; then
			finish "$n"
		else
			[ $((SECONDS - started[$n])) -gt $((2 * usual[$n])) ] && [ ! -f "$OUTDIR/$n.log.hang" ] &&
				end_hung "$n"
			still+=("$n")
		fi
	done
	running=("${still[@]+"${still[@]}"}")
done

echo "== times, longest first"
printf '%s\n' "${times[@]+"${times[@]}"}" | sort -k1,1nr | awk '{printf "time: %-40s %5d s\n", $2, $1}'
if [ -s "$OUTDIR/margins" ]; then
	echo "== the 10 checks closest to their tolerance (MARGIN lines)"
	sed -n 's/.* used \([0-9.]*\)%.*/\1 &/p' "$OUTDIR/margins" | sort -k1,1nr | head -n 10 | cut -d' ' -f2-
fi
echo "time: the whole suite $SECONDS s, $JOBS jobs at once"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
