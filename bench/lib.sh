# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Helpers for bench/run.sh: process CPU time, waiting for a profiler to
# attach, reading a luabpfprof's BPF statistics, and small statistics.

now() { date +%s.%N; }

# cpu_ns PID: CPU time of every thread of PID so far, in ns (schedstat's
# sum_exec_runtime: exact, and it includes interrupt time spent in the
# task's context), or empty when PID is gone.
cpu_ns() {
	cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{s += $1} END {if (NR) printf "%.0f\n", s}'
}

# perf_fds PID: how many perf_event file descriptors PID holds.
perf_fds() {
	find /proc/"$1"/fd -lname 'anon_inode:*perf_event*' 2>/dev/null | wc -l
}

# online_cpus: how many CPUs are online now (a test elsewhere on the
# machine may take one offline for a while).
online_cpus() {
	awk -F, '{for (i = 1; i <= NF; i++) {n = split($i, r, "-"); c += n == 2 ? r[2] - r[1] + 1 : 1}} END {print c}' \
		/sys/devices/system/cpu/online
}

# wait_attached PID N [TIMEOUT]: waits until PID holds at least N perf
# event fds (a profiler has attached its sampling events), then 0.2 s more
# for it to fill its target maps.  Fails if PID dies or after TIMEOUT s.
wait_attached() {
	local pid=$1 n=$2 limit=${3:-20} i=0 on
	on=$(online_cpus)
	[ "$n" -gt "$on" ] && n=$on
	while [ "$(perf_fds "$pid")" -lt "$n" ]; do
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.02
		i=$((i + 1))
		[ $i -gt $((limit * 50)) ] && return 1
	done
	sleep 0.2
}

# fd_ids PID KIND: the ids of the BPF objects PID holds (KIND prog_id or map_id).
fd_ids() {
	cat /proc/"$1"/fdinfo/* 2>/dev/null | awk -v k="$2:" '$1 == k {print $2}' | sort -un
}

# lbp_prog PID [NAME]: the id of the program NAME (default on_sample)
# loaded by luabpfprof PID.
lbp_prog() {
	local id name=${2:-on_sample}
	for id in $(fd_ids "$1" prog_id); do
		bpftool prog show id "$id" 2>/dev/null | grep -q " name $name " && { echo "$id"; return 0; }
	done
	return 1
}

# lbp_counters_map PID: the id of that luabpfprof's `counters` map.
lbp_counters_map() {
	local id
	for id in $(fd_ids "$1" map_id); do
		bpftool map show id "$id" 2>/dev/null | grep -q ' name counters ' && { echo "$id"; return 0; }
	done
	return 1
}

# prog_stats ID: "run_time_ns run_cnt" of BPF program ID (bpf_stats).
prog_stats() {
	bpftool prog show id "$1" 2>/dev/null | awk '{
		for (i = 1; i < NF; i++) {
			if ($i == "run_time_ns") ns = $(i + 1)
			if ($i == "run_cnt") cnt = $(i + 1)
		}} END {print ns + 0, cnt + 0}'
}

# counter_sum MAP: CNT_SAMPLES of a luabpfprof `counters` map summed over
# CPUs.  It is the first u64 of key 0's per-CPU value, whether the map has
# one slot per counter or one block of counters per CPU; read from
# bpftool's JSON byte lists, which do not depend on the map's BTF.
counter_sum() {
	bpftool -j map lookup id "$1" key 0 0 0 0 2>/dev/null | awk '{
		s = $0
		while (match(s, /"value":\[[^]]*\]/)) {
			v = substr(s, RSTART + 9, RLENGTH - 10)
			s = substr(s, RSTART + RLENGTH)
			n = split(v, b, ",")
			x = 0
			for (i = 8; i >= 1; i--) {
				h = b[i]
				gsub(/[" ]|0x/, "", h)
				x = x * 256 + hex(h)
			}
			sum += x
		}
	}
	function hex(h,   i, d, r) {
		r = 0
		for (i = 1; i <= length(h); i++) {
			d = index("0123456789abcdef", tolower(substr(h, i, 1))) - 1
			r = r * 16 + d
		}
		return r
	}
	END {printf "%.0f\n", sum}'
}

# stats LIST...: "median min max" of numbers (empty or NA values skipped);
# "NA NA NA" when there are none.
stats() {
	printf '%s\n' "$@" | awk '$1 != "" && $1 != "NA"' | sort -g | awk '
		{v[NR] = $1}
		END {
			if (!NR) { print "NA NA NA"; exit }
			m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			print m, v[1], v[NR]
		}'
}

# fmt_pct "MEDIAN MIN MAX" [DIGITS]: ratios as signed percentages
# "+0.31% (-0.20 … +0.90)".
fmt_pct() {
	local d=${2:-2}
	echo "$1" | awk -v d="$d" '
		$1 == "NA" { print "n/a"; exit }
		{ f = "%+." d "f"; printf(f "%% (" f " … " f ")\n", ($1 - 1) * 100, ($2 - 1) * 100, ($3 - 1) * 100) }'
}

# fmt3 "MEDIAN MIN MAX" FORMAT: "m (min … max)" with a printf FORMAT.
fmt3() {
	echo "$1" | awk -v f="$2" '
		$1 == "NA" { print "n/a"; exit }
		{ printf(f " (" f " … " f ")\n", $1, $2, $3) }'
}

# median: of the numbers on stdin.  range: "min … max" of them.
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
range() { sort -g | awk '{ v[NR] = $1 } END { printf "%s … %s", v[1], v[NR] }'; }

# workload_start NAME: starts bench/workloads/NAME.lua in windows of $T s
# (the protocol of bench/workloads/common.lua), commands on fd 3, output
# in $WORK/target.out; sets TPID and adds it to pids.  For the side
# figures (alloc.sh, jit.sh, native.sh) that compare windows of one process.
workload_start() {
	mkfifo "$WORK/cmd"
	"$LUAJIT" "bench/workloads/$1.lua" bench "$T" < "$WORK/cmd" > "$WORK/target.out" &
	TPID=$!
	pids+=("$TPID")
	exec 3> "$WORK/cmd"
	for _ in $(seq 300); do grep -q '^ready' "$WORK/target.out" && return 0; sleep 0.1; done
	echo "$(basename "$0"): $1.lua did not start" >&2
	return 1
}

# workload_window [FMT]: runs one window; prints its work units per CPU
# second (printf FMT, default %.1f).
workload_window() {
	local n
	n=$(grep -c '^result' "$WORK/target.out")
	echo go >&3
	for _ in $(seq 600); do
		[ "$(grep -c '^result' "$WORK/target.out")" -gt "$n" ] && break
		sleep 0.1
	done
	grep '^result' "$WORK/target.out" | tail -1 | awk -v f="${1:-%.1f}" '{ printf f "\n", $2 / $3 }'
}

# prof_start WAITFOR ARGS...: starts "$PROF -v ARGS", its stderr in
# $WORK/prof.err; returns once that shows WAITFOR (the -v line saying it
# samples); sets PROFPID and adds it to pids.
prof_start() {
	local waitfor=$1
	shift
	# Emptied here, not by the child's redirection: the loop below could
	# otherwise read the last run's WAITFOR before the child truncates it.
	: > "$WORK/prof.err"
	"$PROF" -v "$@" 2>> "$WORK/prof.err" &
	PROFPID=$!
	pids+=("$PROFPID")
	for _ in $(seq 300); do
		grep -q "$waitfor" "$WORK/prof.err" && return 0
		sleep 0.1
	done
	echo "$(basename "$0"): the profiler did not attach: $(tail -1 "$WORK/prof.err")" >&2
	return 1
}

# alloc_attach PID: starts -e alloc on PID; returns once the probe is in.
alloc_attach() {
	prof_start 'sampling allocations at' -e alloc -f folded -o "$WORK/prof.folded" -p "$1"
}

alloc_detach() {
	kill -INT "$PROFPID" 2>/dev/null
	wait "$PROFPID" 2>/dev/null
}

# alloc_micro MIB PROBED LAUNCH...: MiB per CPU second of
# tests/workloads/alloc.lua allocating MIB MiB, run by LAUNCH (a command,
# or a function that execs one: the PID is the VM's), under -e alloc when
# PROBED is 1.
alloc_micro() {
	local mib=$1 probed=$2 out=$WORK/micro.out tgt
	shift 2
	rm -f "$WORK/go"
	"$@" tests/workloads/alloc.lua "$mib" "$WORK/go" > "$out" &
	tgt=$!
	pids+=("$tgt")
	for _ in $(seq 300); do grep -q '^ready' "$out" && break; sleep 0.1; done
	if [ "$probed" = 1 ] && ! alloc_attach "$tgt"; then
		# Tarantool ignores SIGTERM while its script runs.
		kill -KILL "$tgt" "$PROFPID" 2>/dev/null
		wait "$tgt" "$PROFPID" 2>/dev/null
		return 1
	fi
	touch "$WORK/go"
	wait "$tgt"
	[ "$probed" = 1 ] && alloc_detach
	awk -v mib="$mib" '/^truth/ { split($4, c, "="); printf "%.1f\n", mib / c[2] }' "$out"
}
