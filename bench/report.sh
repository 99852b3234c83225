#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/report.sh [DIR]: turns the raw data of bench/run.sh (DIR, default
# $WORK) into bench/RESULTS.md on stdout.  Run by run.sh; rebuilds the last
# report with: bench/report.sh bench/.out > bench/RESULTS.md
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 1 ] && WORK=$(cd "$1" && pwd)
# shellcheck disable=SC1091
[ -f "${WORK:-/nonexistent}/env.sh" ] && source "$WORK/env.sh"
# shellcheck source=bench/lib.sh
source "$TOP/bench/lib.sh"
BW=$TOP/bench/workloads
: "${WORK:?}" "${T:=1}" "${REPS:=5}" "${FIGS:=1 2 3}" "${LOAD0:=?}" "${LOAD1:=?}" "${ELAPSED:=0}"
: "${NGX_NOTE:=}" "${ALL_MODE:=p}" "${LUAJIT:=$TOP/tests/bin/luajit}" "${TCPU:=1}" "${OCPU:=0}"
: "${FIG2_HZ:=999}" "${FIG2_WIN:=2}" "${FIG3_WIN:=3}" "${NGINX_BIN:=}" "${NGINX_LIBPATH:=}"
: "${HAVE_PERF:=1}"
F1=$WORK/fig1.tsv F2=$WORK/fig2.tsv F3=$WORK/fig3.tsv
MISSES=()
has_fig() { [[ " $FIGS " == *" $1 "* ]]; }

# ---------------------------------------------------------------------------
# Figure 1: overhead = 1 - throughput / baseline, in %, where the baseline
# is the mean of the baselines that open and close the repetition.

# Rows of fig1.tsv: "WL CFG REP.K UNITS CPU WALL".  Window REP.K of the
# baseline is the K-th baseline of repetition REP; a configuration labelled
# REP.K ran between baselines REP.K and REP.K+1.

# overheads WL CFG: one overhead (%) per repetition.
overheads() {
	awk -v wl="$1" -v cfg="$2" '
		$1 != wl || $4 == "NA" || $5 + 0 <= 0 { next }
		$2 == "base" { base[$3] = $4 / $5; next }
		$2 == cfg { thr[$3] = $4 / $5 }
		END {
			for (l in thr) {
				split(l, p, ".")
				a = ((l) in base) ? base[l] : 0
				n = p[1] "." (p[2] + 1)
				b = (n in base) ? base[n] : 0
				m = a && b ? (a + b) / 2 : a + b
				if (m) printf "%.4f\n", (1 - thr[l] / m) * 100
			}
		}' "$F1"
}

# noise WL: the same measure for a baseline window against the mean of the
# baseline windows before and after it (which are one window apart, like
# those a configuration is compared with), among the windows that precede
# jit.p in their repetition (jit.p's trace flushes move the baseline).
noise() {
	awk -v wl="$1" '
		$1 != wl || $4 == "NA" || $5 + 0 <= 0 { next }
		{ split($3, p, ".") }
		$2 ~ /^jp/ { jp[p[1]] = 1; next }
		$2 == "base" && !(p[1] in jp) { base[$3] = $4 / $5 }
		END {
			for (l in base) {
				split(l, p, ".")
				a = p[1] "." (p[2] - 1)
				b = p[1] "." (p[2] + 1)
				if ((a in base) && (b in base))
					printf "%.4f\n", (1 - base[l] / ((base[a] + base[b]) / 2)) * 100
			}
		}' "$F1"
}

# pct "MED MIN MAX": "+0.12% (-0.30 … +0.55)"
pct() {
	echo "$1" | awk '$1 == "NA" {print "n/a"; exit}
		{printf "%+.2f%% (%+.2f … %+.2f)\n", $1, $2, $3}'
}

baseline_thr() {
	local v
	v=$(awk -v wl="$1" '$1 == wl && $2 == "base" && $4 != "NA" && $5 > 0 {print $4 / $5}' "$F1")
	# shellcheck disable=SC2086
	stats $v
}

# jp_rate CFG: jit.p's samples per CPU second of the target, one value per
# Lua-workload window of configuration CFG (jp10 or jp1): the samples in
# its report over the CPU time from its start to its stop.
jp_rate() {
	local wl rep cpu n
	for wl in w631 numeric tables; do
		for ((rep = 1; rep <= REPS; rep++)); do
			[ -s "$WORK/$wl.$1.$rep.jp" ] || continue
			cpu=$(awk -v w="$wl" -v c="$1" -v r="$rep" '$1 == w && $2 == c && index($3, r ".") == 1 {
				for (i = 7; i <= NF; i++) if ($i ~ /^jpcpu=/) { sub(/jpcpu=/, "", $i); print $i } }' "$F1")
			n=$(awk -v mode=jpcount -f "$TOP/bench/fidelity.awk" "$WORK/$wl.$1.$rep.jp")
			[ -n "$cpu" ] && [ -n "$n" ] && awk -v n="$n" -v c="$cpu" 'BEGIN {if (c > 0) printf "%.1f\n", n / c}'
		done
	done
}

declare -A OV JPRATE
fig1() {
	local wl cfg unit s row
	echo "## 1. Target overhead"
	echo
	echo "Throughput lost by the profiled process, \`1 − profiled / baseline\`, in % (positive:"
	echo "slower). Each cell: median over $REPS repetitions (min … max). Throughput is work units per"
	echo "CPU second of the target over a window of $T s of wall time (nginx: requests per CPU second"
	echo "of the worker over a wrk run). The target's CPU time includes the timer interrupts, BPF"
	echo "programs and signal handlers run in its context, and excludes the time other tenants of this"
	echo "shared machine took from it. The target is pinned to CPU $TCPU at nice −10; the profilers'"
	echo "user-space work runs on CPU $OCPU, and so does wrk (at nice −10). One target process serves"
	echo "every window: a baseline window, then each configuration, each followed by another baseline"
	echo "window. A configuration is compared with the mean of the two baseline windows around it (same"
	echo "process, same compiled traces, about a second apart). luabpfprof and \`perf record -F HZ -g -p PID\`"
	echo "come in an order rotated by repetition; they are attached before their window and stopped"
	echo "after it. jit.p comes last: it runs in the target, as \`luajit -jp=MODE\` runs it"
	echo "(\`require('jit.p').start(MODE)\`), started before its window with a warm-up, because starting"
	echo "and stopping it flushes the compiled traces. It has no 4999 Hz setting (its finest interval is"
	echo "1 ms, \`i1\`). The *noise* row compares each baseline window before jit.p with the two around"
	echo "it in the same way: it is the resolution of the method in this run. *Timer alone*:"
	echo "luabpfprof at 4999 Hz attached to a LuaJIT process that never runs, so every tick on the"
	echo "target's CPU takes the BPF program's early exit: the cost of the timer interrupt and the"
	echo "program's entry, which any sampler on this machine pays; the 4999 Hz row less this one is"
	echo "what walking the target's stacks costs it (BPF time, figure 2, and its cache effects)."
	echo
	echo "| workload | rate | luabpfprof | \`luajit -jp\` | \`perf record -g\` | target: luabpfprof |"
	echo "|---|---|---|---|---|---|"
	for wl in w631 numeric tables nginx; do
		grep -q "^$wl " "$F1" 2>/dev/null || continue
		for cfg in lbp99 lbp999 lbp4999 jp10 jp1 perf99 perf999 perf4999 idle4999; do
			# shellcheck disable=SC2046
			OV[$wl,$cfg]=$(stats $(overheads "$wl" "$cfg"))
		done
		# shellcheck disable=SC2046
		OV[$wl,noise]=$(stats $(noise "$wl"))
		for row in "99 jp10" "999 jp1" "4999 -"; do
			set -- $row
			local hz=$1 jp=$2 l p j tgt verdict
			l=${OV[$wl,lbp$hz]}
			p=${OV[$wl,perf$hz]}
			j=NA
			[ "$jp" != - ] && j=${OV[$wl,$jp]}
			tgt=""
			verdict=met
			case $hz in
			99) tgt="≤ 0.5%" ;;
			999) tgt="≤ 2%" ;;
			4999) tgt="–" ;;
			esac
			local lm pm jm
			lm=${l%% *} pm=${p%% *} jm=${j%% *}
			if [ "$lm" = NA ]; then
				verdict="no data"
			else
				if [ "$hz" = 99 ] && awk -v x="$lm" 'BEGIN {exit !(x > 0.5)}'; then
					verdict=MISSED
					MISSES+=("overhead|$wl|$hz|at most 0.5% at 99 Hz|$l")
				fi
				if [ "$hz" = 999 ] && awk -v x="$lm" 'BEGIN {exit !(x > 2)}'; then
					verdict=MISSED
					MISSES+=("overhead|$wl|$hz|at most 2% at 999 Hz|$l")
				fi
				if [ "$pm" != NA ] && awk -v x="$lm" -v y="$pm" 'BEGIN {exit !(x >= y)}'; then
					verdict=MISSED
					MISSES+=("below|$wl|$hz|below perf record -g at $hz Hz|$l|$p")
				fi
				if [ "$jm" != NA ] && awk -v x="$lm" -v y="$jm" 'BEGIN {exit !(x >= y)}'; then
					verdict=MISSED
					MISSES+=("below|$wl|$hz|below luajit -jp (i${jp#jp}) at $hz Hz|$l|$j")
				fi
			fi
			if [ "$tgt" = "–" ]; then tgt="below perf: $verdict"; else tgt="$tgt, below both: $verdict"; fi
			echo "| $wl | $hz Hz$([ "$jp" != - ] && echo " / \`i${jp#jp}\`") | $(pct "$l") | $(pct "$j") | $(pct "$p") | $tgt |"
		done
		[ "${OV[$wl,idle4999]%% *}" != NA ] &&
			echo "| $wl | 4999 Hz, timer alone | $(pct "${OV[$wl,idle4999]}") | | | – |"
		echo "| $wl | noise: baseline window vs its neighbours (robust sd $(sig_level "$wl" | cut -d' ' -f2) points; a median of $REPS: ±$(sig_level "$wl" | cut -d' ' -f1)) | $(pct "${OV[$wl,noise]}") | | | |"
	done
	echo
	echo "Baselines (work units per CPU second of the target, median (min … max)):"
	echo
	for wl in w631 numeric tables nginx; do
		grep -q "^$wl base" "$F1" 2>/dev/null || continue
		case $wl in
		w631) unit="LCG steps" ;;
		numeric) unit="rounds (140 Mandelbrot tiles + 7000 n-body steps)" ;;
		tables) unit="rounds (58 record sets + 225 renders + 55 pattern passes)" ;;
		nginx) unit="requests per worker CPU second" ;;
		esac
		s=$(baseline_thr "$wl")
		echo "- \`$wl\`: $(fmt3 "$s" "%.4g") $unit"
	done
	local rps
	rps=$(awk '$1 == "nginx" && $2 == "base" && $4 != "NA" && $6 > 0 {print $4 / $6}' "$F1")
	# shellcheck disable=SC2086
	[ -n "$rps" ] && echo "- \`nginx\` in requests per wall second (wrk): $(fmt3 "$(stats $rps)" "%.0f")"
	local jp
	for jp in jp10 jp1; do
		# shellcheck disable=SC2046
		JPRATE[$jp]=$(stats $(jp_rate "$jp"))
	done
	if [ "${JPRATE[jp1]%% *}" != NA ]; then
		echo
		echo "jit.p's actual sampling rate, in samples per CPU second of the target (Lua workloads, median"
		echo "(min … max)): $(fmt3 "${JPRATE[jp10]}" "%.0f") at \`i10\`, $(fmt3 "${JPRATE[jp1]}" "%.0f") at \`i1\`. Its timer is a CPU-time"
		echo "timer (ITIMER_PROF), which this kernel checks at the scheduler tick (CONFIG_HZ=$(zcat /proc/config.gz 2>/dev/null | sed -n 's/^CONFIG_HZ=//p' || echo '?')), so \`i1\`"
		echo "cannot sample faster than the tick. At \`i1\` jit.p took that many samples, while luabpfprof"
		echo "took 999 per second at 999 Hz."
	fi
	echo
	echo "Workloads (\`bench/workloads/\`):"
	echo "- \`w631\`: the 6:3:1 workload (functions a/b/c, identical LCG loops, 6:3:1 iteration counts)."
	echo "- \`numeric\`: JIT-compiled floating point: a Mandelbrot kernel and an n-body step, about 60/40."
	echo "- \`tables\`: tables and strings: records with \`table.sort\` and a Lua comparator, rendering with \`string.format\`/\`..\`/\`table.concat\`, \`match\`/\`gsub\`/\`upper\`/\`find\`; about 50/30/20, allocation-heavy (the GC runs in every phase)."
	echo "- \`nginx\`: $( [ -n "$NGX_NOTE" ] && echo "$NGX_NOTE" || echo "not run") Handler \`bench/workloads/nginx_app.lua\` (template-like rendering, ~200 µs of Lua per request)."
	echo
}

# ---------------------------------------------------------------------------
# Figure 4: fidelity, from the luabpfprof runs of figure 1.

# truth_of WL: the header's split by construction ("-- truth:"), if any.
truth_of() { sed -n 's/^-- truth: //p' "$BW/$1.lua"; }
# split_of WL CFG REP: the split a workload measured in that window.
split_of() {
	awk -v wl="$1" -v c="$2" -v r="$3" '$1 == wl && $2 == c && index($3, r ".") == 1 {
		for (i = 7; i <= NF; i++) if ($i !~ /^jpcpu=/) printf "%s%s", $i, (i < NF ? " " : "")
	}' "$F1"
}
alias_of() { sed -n 's/^-- alias: \([^ ]*\).*/\1/p' "$BW/$1.lua" | tr '\n' ' '; }

# unwind WL: "samples ok% median-per-run min max" over every luabpfprof run.
unwind() {
	local f
	for f in "$WORK/$1".lbp*.summary; do
		[ -f "$f" ] || continue
		awk '/samples in/ {
			for (i = 1; i <= NF; i++) {
				if ($(i + 1) == "samples") s = $i
				if ($(i + 1) == "bad") b = $i
				if ($(i + 1) == "truncated,") t = $i
				if ($(i + 1) == "read") r = $i
			}
			print s, b + t + r }' "$f"
	done | awk '
		{ S += $1; B += $2; if ($1 > 0) { n++; v[n] = 100 * ($1 - $2) / $1 } }
		END {
			if (!S) { print "0 NA NA NA NA"; exit }
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { x = v[i]; v[i] = v[j]; v[j] = x }
			m = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
			printf "%d %.3f %.3f %.3f %.3f\n", S, 100 * (S - B) / S, m, v[1], v[n]
		}'
}

fig4() {
	local wl tr al r f u errs jerrs same diffs nsame nrep x ex jx
	echo "## 4. Fidelity"
	echo
	echo "From the luabpfprof runs of figure 1 (\`--jp F -f folded\`) and the jit.p runs (mode \`Fm0ri1\`)"
	echo "of the same repetitions. **Unwind success**: samples whose stack was walked completely"
	echo "and validly (not a bad frame, truncated or read fault), over all luabpfprof runs of the"
	echo "workload (99, 999 and 4999 Hz), and the per-run median (min … max). **Error vs truth**: the"
	echo "largest difference, in percentage points, between a phase's measured share and its true share,"
	echo "per 999 Hz window: median (min … max). The true shares are 60/30/10 by construction for"
	echo "\`w631\`; for \`numeric\` and \`tables\` the workload measures them itself in the same window,"
	echo "with the process CPU clock read around each phase. A sample belongs to the phase function"
	echo "nearest its leaf; samples in none of them count as error. jit.p's own error is computed the"
	echo "same way from its keys, against the split of its own window. **Agreement with jit.p**: luabpfprof's"
	echo "samples are charged to their nearest Lua frame (as jit.p charges C and fast functions to"
	echo "the Lua function that runs next); *same keys* counts the repetitions whose key sets at"
	echo "jit.p's 3% threshold are equal, *max share difference* is the largest difference over all"
	echo "keys, in points."
	echo
	echo "| workload | samples | unwind success | error vs truth, luabpfprof | error vs truth, jit.p \`i1\` | same keys as jit.p | max share difference vs jit.p |"
	echo "|---|---|---|---|---|---|---|"
	for wl in w631 numeric tables nginx; do
		u=$(unwind "$wl")
		set -- $u
		[ "$1" = 0 ] && continue
		local samples=$1 pooled=$2 um="$3 $4 $5"
		errs=() jerrs=() diffs=() nsame=0 nrep=0
		tr=$(truth_of "$wl" 2>/dev/null)
		al=$(alias_of "$wl" 2>/dev/null)
		local has_truth=0
		for f in "$WORK/$wl".lbp999.*.folded; do
			[ -s "$f" ] || continue
			r=${f%.folded}
			r=${r##*.}
			local t1 t2
			t1=$(split_of "$wl" lbp999 "$r")
			t1=${t1:-$tr}
			if [ -n "$t1" ]; then
				has_truth=1
				x=$(awk -v mode=truth -v truth="$t1" -v alias="$al" -f "$TOP/bench/fidelity.awk" "$f")
				errs+=("${x%% *}")
				echo "$wl $r luabpfprof $x | truth:$(echo " $t1" | sed 's/ [^ ]*:/ /g')" >> "$WORK/fig4.tsv"
			fi
			local jp="$WORK/$wl.jp1.$r.jp"
			if [ -s "$jp" ]; then
				t2=$(split_of "$wl" jp1 "$r")
				t2=${t2:-$tr}
				if [ -n "$t2" ]; then
					x=$(awk -v mode=jptruth -v truth="$t2" -v alias="$al" -f "$TOP/bench/fidelity.awk" "$jp")
					jerrs+=("${x%% *}")
					echo "$wl $r jit.p $x | truth:$(echo " $t2" | sed 's/ [^ ]*:/ /g')" >> "$WORK/fig4.tsv"
				fi
				awk -v mode=jpkeys -f "$TOP/bench/fidelity.awk" "$f" > "$WORK/$wl.$r.lkeys"
				awk -v mode=jpreport -f "$TOP/bench/fidelity.awk" "$jp" > "$WORK/$wl.$r.jkeys"
				x=$(awk -v mode=compare -f "$TOP/bench/fidelity.awk" "$WORK/$wl.$r.lkeys" "$WORK/$wl.$r.jkeys")
				nrep=$((nrep + 1))
				[ "${x%% *}" = 1 ] && nsame=$((nsame + 1))
				diffs+=("${x##* }")
			fi
		done
		ex="n/a (no ground truth)"
		jx="n/a"
		if [ $has_truth = 1 ]; then
			ex=$(fmt3 "$(stats "${errs[@]}")" "%.1f")
			jx=$(fmt3 "$(stats "${jerrs[@]}")" "%.1f")
		fi
		local agree="n/a" dd="n/a"
		if [ $nrep -gt 0 ]; then
			agree="$nsame of $nrep"
			dd=$(fmt3 "$(stats "${diffs[@]}")" "%.1f")
		fi
		echo "| $wl | $samples | $(printf '%.2f%%' "$pooled"); per run $(fmt3 "$um" "%.2f%%") | $ex | $jx | $agree | $dd |"
	done
	echo
	echo "Where the keys differ from jit.p's, these are the usual causes:"
	echo "- jit.p charges a C function's time to the Lua function that runs next. For \`table.sort\` that"
	echo "  is the comparator (\`tables.lua:19\`), while the nearest-Lua-caller rule charges it to sort's caller."
	echo "- In nginx, the worker's time outside Lua (HTTP parsing, epoll, writes: luabpfprof's \`[host]\`, left"
	echo "  out of the comparison) goes, in jit.p, to the Lua code that runs next, mostly the"
	echo "  \`content_by_lua\` chunk."
	echo "- jit.p samples at the VM's next safe point. In compiled loops that can be far from the tick"
	echo "  (its error against the truth, above)."
	echo
	echo "Shares measured in each 999 Hz window (luabpfprof) and \`i1\` window (jit.p), in %, and the"
	echo "true shares of that window:"
	echo
	echo '```'
	for wl in w631 numeric tables; do
		awk -v wl="$wl" '$1 == wl {$1 = ""; sub(/^ /, ""); print wl " rep " $0}' "$WORK/fig4.tsv" 2>/dev/null |
			sort -k3,3n -k4,4 | sed 's/ [a-z0-9]*\.lua:/ /g'
	done
	echo '```'
	echo
	echo "(Each line: workload, repetition, profiler, its largest error in points, the shares it measured"
	echo "(\`other\`: samples in none of the phases), then the true shares.)"
	echo
}

# ---------------------------------------------------------------------------
# Figure 2

declare -A BPF
fig2() {
	local early d rows e v per frames n
	echo "## 2. BPF cost per sample"
	echo
	echo "From bpf_stats (\`kernel.bpf_stats_enabled=1\`; \`run_time_ns\`, \`run_cnt\` of the program"
	echo "\`on_sample\` of this luabpfprof, found through its file descriptors), over ${FIG2_WIN} s windows at"
	echo "$FIG2_HZ Hz (the early exit also at 99 and 4999 Hz), $REPS repetitions: median (min … max), in µs. The program runs on every CPU's"
	echo "tick; the target's samples are counted by the program's own \`counters\` map, every other"
	echo "invocation is an early exit. **Early exit**: luabpfprof attached to an idle LuaJIT process"
	echo "while a busy non-Lua loop runs, so every invocation is an early exit. **Depth N**: a hot"
	echo "leaf at N frames (\`bench/workloads/depth.lua\`: the C frame, the main chunk, N−3"
	echo "\`descend\` frames, each a function of its own chunk, and \`leaf\`: the walker's worst case);"
	echo "cost per sample = (run_time_ns − early exits × early-exit"
	echo "cost) / samples. *Frames seen* is the depth of the most frequent stack luabpfprof reported."
	echo
	echo "| path | frames seen | µs per sample | vs depth 5 | samples per window | target |"
	echo "|---|---|---|---|---|---|"
	local hz row
	for hz in 99 999 4999; do
		e=$(awk -v k="early$hz" '$1 == k && $4 + 0 > 0 {print $3 / $4 / 1000}' "$F2")
		[ -z "$e" ] && continue
		# shellcheck disable=SC2086
		BPF[early$hz]=$(stats $e)
		n=$(awk -v k="early$hz" '$1 == k {print $4}' "$F2")
		row="| early exit (other processes), $hz Hz | – | $(fmt3 "${BPF[early$hz]}" "%.3f") | – | $(fmt3 "$(stats $n)" "%.0f") invocations |"
		if [ "$hz" = "$FIG2_HZ" ]; then
			BPF[early]=${BPF[early$hz]}
			local em=${BPF[early]%% *} verdict=met
			if [ "$em" = NA ]; then verdict="no data"
			elif gt "$em" 0.3; then
				verdict=MISSED
				MISSES+=("early|early exit|$hz|at most 0.3 µs on the early exit|${BPF[early]}")
			fi
			row="$row ≤ 0.3 µs: $verdict |"
		else
			row="$row (context: the same path at another rate) |"
		fi
		echo "$row"
	done
	local em=${BPF[early]:-NA}
	em=${em%% *}
	local base5
	for d in 5 20 100 250; do
		v=$(awk -v d="d$d" -v c="${em/NA/0}" '$1 == d && $5 + 0 > 0 {print ($3 - ($4 - $5) * c * 1000) / $5 / 1000}' "$F2")
		# shellcheck disable=SC2086
		BPF[d$d]=$(stats $v)
		frames=$(awk -v d="d$d" '$1 == d {print $6}' "$F2" | sort | uniq -c | sort -rn | awk 'NR == 1 {print $2}')
		n=$(awk -v d="d$d" '$1 == d {print $5}' "$F2")
		[ $d = 5 ] && base5=${BPF[d5]%% *}
		local ratio="–"
		if [ $d != 5 ] && [ "${base5:-NA}" != NA ] && [ "${BPF[d$d]%% *}" != NA ]; then
			ratio=$(awk -v a="${BPF[d$d]%% *}" -v b="$base5" 'BEGIN {printf "×%.2f", a / b}')
		fi
		local tgt="–"
		if [ $d = 20 ]; then
			tgt="≤ 1.5 µs: met"
			if [ "${BPF[d20]%% *}" = NA ]; then tgt="≤ 1.5 µs: no data"
			elif awk -v x="${BPF[d20]%% *}" 'BEGIN {exit !(x > 1.5)}'; then
				tgt="≤ 1.5 µs: MISSED"
				MISSES+=("depth|depth 20|-|at most 1.5 µs at depth 20|${BPF[d20]}")
			fi
		fi
		# shellcheck disable=SC2086
		echo "| depth $d | ${frames:-n/a} | $(fmt3 "${BPF[d$d]}" "%.3f") | $ratio | $(fmt3 "$(stats $n)" "%.0f") | $tgt |"
	done
	local a=${BPF[d20]%% *} b=${BPF[d250]%% *}
	if [ "$a" != NA ] && [ "$b" != NA ]; then
		echo
		local m
		m=$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.1f", (b - a) / 230 * 1000}')
		echo "Marginal cost of a frame, (depth 250 − depth 20) / 230: $m ns (target ≤ 150 ns: $(awk -v m="$m" 'BEGIN {print (m <= 150 ? "met" : "MISSED")}'))"
	fi
	echo
}

# ---------------------------------------------------------------------------
# Figures 3 and 5

# Rows of fig3.tsv: "SELN HZ REP CPU_FRAC STARTUP_MS D_NS D_CNT D_SAMPLES
# OTHERS", SEL p (-p) or a (-a, or a -p list standing in for it).

all_note() {
	if [ "$ALL_MODE" = a ]; then
		echo "\`-a\`, which also profiles every other LuaJIT process running on the machine at the time (the *other LuaJIT* column: other engineers' tests)"
	else
		echo "a \`-p\` list of their PIDs: \`-a\` found no LuaJIT process in this build, so these rows stand in for it (re-run when \`-a\` works)"
	fi
}

fig3() {
	local s
	echo "## 3. luabpfprof's own CPU"
	echo
	echo "CPU time of the luabpfprof process (every thread, from schedstat) per second of wall"
	echo "time, in % of one CPU, over a ${FIG3_WIN} s window that starts once sampling is live (it"
	echo "includes draining the kernel maps and symbolizing new stacks). The profiled processes are"
	echo "CPU-bound \`w631\` instances on CPU $TCPU. *Start-up* is the CPU luabpfprof used before"
	echo "sampling started (finding the VMs, loading and verifying the BPF program). Median (min … max)"
	echo "of $REPS repetitions. The 10-process rows use $(all_note)."
	echo
	echo "| profiled | rate | CPU, % of one CPU | start-up CPU (ms) | other LuaJIT processes |"
	echo "|---|---|---|---|---|"
	for s in "p1 99" "p1 999" "a10 99" "a10 999"; do
		set -- $s
		local c st o what
		c=$(awk -v n="$1" -v h="$2" '$1 == n && $2 == h && $4 != "NA" {print $4 * 100}' "$F3")
		st=$(awk -v n="$1" -v h="$2" '$1 == n && $2 == h && $5 != "NA" {print $5}' "$F3")
		o=$(awk -v n="$1" -v h="$2" '$1 == n && $2 == h {print $9}' "$F3")
		what="one process (\`-p\`)"
		[ "$1" = a10 ] && what="10 processes ($([ "$ALL_MODE" = a ] && echo "\`-a\`" || echo "\`-p\` list"))"
		[ "$1" = p1 ] && o=
		# shellcheck disable=SC2086
		echo "| $what | $2 Hz | $(fmt3 "$(stats $c)" "%.3f%%") | $(fmt3 "$(stats $st)" "%.0f") | $([ -n "$o" ] && fmt3 "$(stats $o)" "%.0f" || echo "–") |"
	done
	echo
}

fig5() {
	local n one
	one=a1
	grep -q '^a1 ' "$F3" 2>/dev/null || one=p1
	echo "## 5. Scaling with the number of LuaJIT processes"
	echo
	echo "1, 10 and 50 CPU-bound \`w631\` processes on CPU $TCPU, profiled at 999 Hz by one luabpfprof"
	echo "through $(all_note). BPF cost per invocation counts every run of the program, early exits"
	echo "included; per target sample subtracts the early exits at figure 2's early-exit cost. The"
	echo "target samples are those of every profiled process. Ratios are against the 1-process row of"
	echo "the same repetition (median of the per-repetition ratios)."
	echo
	echo "| processes | BPF µs per invocation | BPF µs per target sample | ratio vs 1 (per sample) | user-space CPU, % of one CPU | ratio vs 1 (CPU) | target samples per s | other LuaJIT |"
	echo "|---|---|---|---|---|---|---|---|"
	local em=${BPF[early]:-NA}
	em=${em%% *}
	[ "$em" = NA ] && em=0
	for n in 1 10 50; do
		local key=a$n inv per cpu rp rc sps o
		[ $n = 1 ] && key=$one
		inv=$(awk -v k="$key" '$1 == k && $2 == 999 && $7 + 0 > 0 {print $6 / $7 / 1000}' "$F3")
		per=$(awk -v k="$key" -v c="$em" '$1 == k && $2 == 999 && $8 + 0 > 0 {print ($6 - ($7 - $8) * c * 1000) / $8 / 1000}' "$F3")
		cpu=$(awk -v k="$key" '$1 == k && $2 == 999 && $4 != "NA" {print $4 * 100}' "$F3")
		sps=$(awk -v k="$key" -v w="$FIG3_WIN" '$1 == k && $2 == 999 && $8 != "NA" {print $8 / w}' "$F3")
		o=$(awk -v k="$key" '$1 == k && $2 == 999 {print $9}' "$F3")
		rp=$(awk -v k="$key" -v one="$one" -v c="$em" '$2 == 999 && $8 + 0 > 0 {
				v = ($6 - ($7 - $8) * c * 1000) / $8
				if ($1 == one) b[$3] = v
				if ($1 == k) x[$3] = v }
			END { for (r in x) if (r in b) print x[r] / b[r] }' "$F3")
		rc=$(awk -v k="$key" -v one="$one" '$2 == 999 && $4 != "NA" && $4 > 0 {
				if ($1 == one) b[$3] = $4
				if ($1 == k) x[$3] = $4 }
			END { for (r in x) if (r in b) print x[r] / b[r] }' "$F3")
		# shellcheck disable=SC2086
		echo "| $n | $(fmt3 "$(stats $inv)" "%.3f") | $(fmt3 "$(stats $per)" "%.3f") | $(fmt3 "$(stats $rp)" "×%.2f") | $(fmt3 "$(stats $cpu)" "%.3f%%") | $(fmt3 "$(stats $rc)" "×%.2f") | $(fmt3 "$(stats $sps)" "%.0f") | $([ "$key" = p1 ] && echo "– (\`-p\`)" || fmt3 "$(stats $o)" "%.0f") |"
	done
	echo
}

# ---------------------------------------------------------------------------
# Header, headline, closing note.

luajit_versions() {
	echo "- LuaJIT (Lua workloads): \`$("$LUAJIT" -v 2>&1 | head -1)\` ($LUAJIT, Debian package $(dpkg-query -W -f='${Version}' luajit 2>/dev/null || echo '?'))"
	if [ -n "$NGINX_BIN" ]; then
		local v
		v=$(LD_LIBRARY_PATH=$NGINX_LIBPATH ldd "$(dirname "$NGINX_BIN")/../lib/nginx/modules/ngx_http_lua_module.so" 2>/dev/null |
			awk '/libluajit/ {print $3}')
		local deb
		deb=$(ls "$TOP"/bench/.deps/nginx/usr/share/doc/libluajit2-5.1-2/changelog.Debian.gz 2>/dev/null &&
			zcat "$TOP"/bench/.deps/nginx/usr/share/doc/libluajit2-5.1-2/changelog.Debian.gz | head -1 | sed 's/.*(\(.*\)).*/\1/')
		# relative to the checkout: no machine's path in the report
		v=${v#"$TOP"/}
		echo "- LuaJIT (nginx): OpenResty LuaJIT 2.1 (Debian libluajit2-5.1-2 ${deb##*$'\n'}), ${v:-?}"
	fi
}

# split_shift WL: one line on how far the workload's own measured split
# moved in jit.p's windows, against luabpfprof's (empty when it did not
# measure one, or it moved by less than 5 points).
split_shift() {
	[ -s "$WORK/fig4.tsv" ] || return 0
	awk -v wl="$1" '$1 == wl {
			t = $0; sub(/.*truth: /, "", t); split(t, kv, " "); split(kv[1], p, "=")
			v = p[2] + 0; k = p[1]
			if ($3 == "jit.p") { if (!jn++ || v < jlo) jlo = v; if (v > jhi) jhi = v }
			else { if (!ln++ || v < llo) llo = v; if (v > lhi) lhi = v }
		}
		END {
			if (!jn || !ln || k == "") exit
			d1 = jlo - llo; d2 = jhi - lhi; if (d1 < 0) d1 = -d1; if (d2 < 0) d2 = -d2
			if (d1 < 5 && d2 < 5) exit
			printf "  Figure 4 shows it: the share of %s, measured by the workload itself, was %.0f–%.0f%% in\n", k, jlo, jhi
			printf "  jit.p'"'"'s windows and %.0f–%.0f%% in luabpfprof'"'"'s.\n", llo, lhi
		}' "$WORK/fig4.tsv"
}

# sig_level WL: "HALF SD": SD is the spread of one window's noise on WL, a
# robust standard deviation of its noise row (1.4826 x the median absolute
# deviation: a preempted window is an outlier, not the typical spread), and
# HALF the half-width of a 95% interval for the median of REPS such
# windows, 1.96 x 1.2533 x SD / sqrt(REPS).  Smaller differences are not
# significant.
sig_level() {
	noise "$1" | sort -g | awk -v n="$REPS" '
		{v[++k] = $1}
		function median(a, m) { return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2 }
		END {
			if (k < 3) { print "NA NA"; exit }
			med = median(v, k)
			for (i = 1; i <= k; i++) d[i] = v[i] > med ? v[i] - med : med - v[i]
			for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (d[j] < d[i]) { x = d[i]; d[i] = d[j]; d[j] = x }
			sd = 1.4826 * median(d, k)
			printf "%.2f %.2f\n", 1.96 * 1.2533 * sd / sqrt(n), sd
		}'
}

# jp_per_sample HZ LBP JP [sig]: when jit.p's real rate differs from HZ by
# more than half, says so; with "sig" (a significant difference), also
# each profiler's overhead per 1000 samples.
jp_per_sample() {
	local jr=${JPRATE[jp1]:-NA}
	[ "$1" = 99 ] && jr=${JPRATE[jp10]:-NA}
	jr=${jr%% *}
	[ "$jr" = NA ] && return 0
	awk -v h="$1" -v l="$2" -v j="$3" -v r="$jr" -v sig="${4:-}" 'BEGIN {
		if (r * 1.5 > h && r < h * 1.5) exit
		printf "  Note that jit.p did not sample at %d Hz: it took %.0f samples per CPU second (figure 1).\n", h, r
		if (sig != "")
			printf "  Per 1000 samples, luabpfprof cost %.2f%% and jit.p %.2f%%.\n", l * 1000 / h, j * 1000 / r }'
}

# abs_max "MED MIN MAX": the largest magnitude of MIN and MAX.
abs_max() {
	echo "$1" | awk '$1 == "NA" {print "NA"; exit}
		{a = ($2 < 0) ? -$2 : $2; b = ($3 < 0) ? -$3 : $3; printf "%.2f\n", (a > b) ? a : b}'
}

# gt X Y: X > Y (numbers)
gt() { awk -v x="$1" -v y="$2" 'BEGIN {exit !(x + 0 > y + 0)}'; }

closing() {
	local m kind wl hz what val alt nz lm am d5 bpfpct perfv
	echo "## Closing note: targets missed"
	echo
	if [ ${#MISSES[@]} -eq 0 ]; then
		echo "Every target was met in this run."
		echo
		return
	fi
	d5=${BPF[d5]:-NA}
	d5=${d5%% *}
	[ "$d5" != NA ] && d5=$(printf '%.2f' "$d5")
	for m in "${MISSES[@]}"; do
		IFS='|' read -r kind wl hz what val alt <<< "$m"
		lm=${val%% *}
		case $kind in
		overhead|below)
			local sl sd
			read -r sl sd <<< "$(sig_level "$wl")"
			bpfpct=n/a
			[ "$d5" != NA ] && bpfpct=$(awk -v c="$d5" -v h="$hz" 'BEGIN {printf "%.2f%%", c * h / 1e4}')
			perfv=${OV[$wl,perf$hz]:-NA}
			echo "- **$wl, $what**: luabpfprof $(pct "$val")$([ -n "$alt" ] && echo ", against $(pct "$alt")")."
			local noise_txt="one window of $wl varies by $sd points (robust sd of the noise row), so a median of $REPS is known to ±$sl points"
			if [ "$kind" = overhead ]; then
				local excess
				excess=$(awk -v x="$lm" -v t="$what" 'BEGIN {split(t, a, "% "); sub(/.* /, "", a[1]); printf "%.2f", x - a[1]}')
				local pm=${perfv%% *} bp=${bpfpct%\%}
				[ "$pm" = NA ] && pm=0
				[ "$bp" = n/a ] && bp=0
				if [ "$sl" != NA ] && ! gt "$excess" "$sl"; then
					echo "  The median is $excess points above the target. Noise: $noise_txt. The run"
					echo "  cannot tell this from meeting the target."
				elif ! gt "$(awk -v x="$lm" -v s="$sl" 'BEGIN {print x - s}')" "$(awk -v a="$bp" -v b="$pm" 'BEGIN {print a + (b > 0 ? b : 0)}')"; then
					echo "  This is beyond the noise: $noise_txt. It is what sampling at $hz Hz costs here. The BPF"
					echo "  program accounts for about $bpfpct ($d5 µs per sample at depth 5, figure 2, × $hz Hz)."
					echo "  The rest is the sampling path itself: the timer interrupt, the perf-event overflow and"
					echo "  the cache and TLB disturbance in the target. \`perf record\` pays that too: $(pct "$perfv") here."
				else
					echo "  This is beyond the noise: $noise_txt. It is also more than this run's data explains. The"
					echo "  BPF program accounts for about $bpfpct ($d5 µs per sample at depth 5, figure 2, × $hz Hz),"
					echo "  and the whole sampling path of \`perf record\` for $(pct "$perfv"). Other runs of this"
					echo "  bench should show whether it reproduces before it is chased."
				fi
			else
				am=${alt%% *}
				local diff
				diff=$(awk -v x="$lm" -v y="$am" 'BEGIN {printf "%.2f", x - y}')
				if [ "$sl" != NA ] && ! gt "$diff" "$(awk -v s="$sl" 'BEGIN {print s * 1.4142}')"; then
					echo "  The medians differ by $diff points. Noise: $noise_txt, and a difference of two"
					echo "  medians to ±$(awk -v s="$sl" 'BEGIN {printf "%.2f", s * 1.4142}'). The difference is not significant."
					[[ $what == *luajit* ]] && jp_per_sample "$hz" "$lm" "$am"
				elif [[ $what == *luajit* ]] && gt "$(awk -v s="$sl" 'BEGIN {print -s}')" "$am"; then
					echo "  jit.p's figure is negative: the target ran faster under jit.p than without it. Starting"
					echo "  jit.p flushes the compiled code, and LuaJIT re-records the traces with the profiler's"
					echo "  hooks. Those traces can be faster or slower than the baseline's, so the figure measures"
					echo "  trace re-recording as much as the cost of sampling. No profiler that leaves the"
					echo "  target's code alone can be below it."
					split_shift "$wl"
				elif [[ $what == *luajit* ]] && [ -n "$(split_shift "$wl")" ]; then
					echo "  In jit.p's windows the target ran different code: starting jit.p flushes the compiled"
					echo "  traces, and LuaJIT re-records them with the profiler's hooks, which changes the"
					echo "  workload's own speed, not only the cost of sampling."
					split_shift "$wl"
				elif [[ $what == *luajit* ]]; then
					echo "  The difference is significant ($noise_txt)."
					jp_per_sample "$hz" "$lm" "$am" sig
					echo "  jit.p's work per sample is a signal, a Lua callback at the next safe point and a"
					echo "  one-frame stack dump (mode F). luabpfprof walks the whole stack in the kernel at the tick,"
					echo "  $d5 µs per sample at depth 5 (figure 2). jit.p's attribution is worse for it (figure 4)."
				else
					local bp2=${bpfpct%\%}
					echo "  The difference is significant ($noise_txt). \`perf record -g\` copies the kernel's"
					echo "  frame-pointer unwind into a ring buffer. luabpfprof's program walks the Lua stack with"
					echo "  bpf_probe_read_user, $d5 µs per sample at depth 5 (figure 2): about $bpfpct at $hz Hz."
					if [ "$bp2" != n/a ] && ! gt "$diff" "$(awk -v b="$bp2" -v s="$sl" 'BEGIN {print b + s * 1.4142}')"; then
						echo "  That accounts for the difference: the walk costs more than perf's unwind."
					else
						echo "  That does not account for all of the difference, and this run's data does not explain"
						echo "  the rest. Other runs of this bench should show whether it reproduces."
					fi
				fi
			fi
			;;
		early)
			local e99=${BPF[early99]:-NA} e4999=${BPF[early4999]:-NA}
			echo "- **$what**: measured $(fmt3 "$val" "%.3f µs") at $hz Hz."
			echo "  The early exit is one lookup of the tgid in the \`procs\` hash map, plus the program's"
			echo "  entry and bpf_stats' own clock reads. Its cost depends on how often it runs: $(fmt3 "$e99" "%.3f") µs"
			echo "  at 99 Hz, $(fmt3 "$e4999" "%.3f") µs at 4999 Hz (figure 2). That pattern points to caches:"
			echo "  between two ticks the other tenants of the CPU evict the program's code and map entries,"
			echo "  and the less often it runs, the colder each run starts. That is a property of this loaded"
			echo "  guest rather than work the program could drop; the lookup itself is already the minimum."
			;;
		depth)
			local a=${BPF[d20]:-NA} b=${BPF[d250]:-NA} per
			per=$(awk -v a="${a%% *}" -v b="${b%% *}" 'BEGIN {if (a == "NA" || b == "NA") print "n/a"; else printf "%.0f", (b - a) / 230 * 1000}')
			echo "- **$what**: measured $(fmt3 "$val" "%.2f µs")."
			echo "  The cost grows by about $per ns per frame (figure 2: depth 250 against depth 20), on top of"
			echo "  $d5 µs at depth 5. For a Lua frame met in an earlier sample the walker makes two"
			echo "  bpf_probe_read_user calls, the function's header and the prototype's header span (the"
			echo "  fingerprint that keeps a prototype freed before the drain from being named after its"
			echo "  successor, docs/hardening.md); the caller's CALL instruction and the chunk name's string id"
			echo "  come from per-CPU caches (bpf/walkcache.bpf.h), checked against those reads and the string"
			echo "  epoch. It reads the frame's slots from a 512-byte window of the Lua stack, looks up two"
			echo "  direct-mapped caches and takes one bpf_loop step; the earlier walker's frame, without its"
			echo "  one read, cost about 110 ns (measured by skipping it, unsafely, in a test build)."
			if [ "$per" != n/a ]; then
				awk -v t="${a%% *}" -v p="$per" 'BEGIN {
					printf "  At depth 20 that is about %.2f µs for the frames and %.2f µs for the rest of the sample.\n",
						20 * p / 1000, t - 20 * p / 1000 }'
			fi
			;;
		esac
	done
	echo
}

# ---------------------------------------------------------------------------
body=$WORK/body.md
: > "$body"
: > "$WORK/fig4.tsv"
has_fig 1 && fig1 >> "$body"
has_fig 2 && fig2 >> "$body"
has_fig 3 && fig3 >> "$body"
has_fig 1 && fig4 >> "$body"
has_fig 3 && fig5 >> "$body"

echo "# luabpfprof benchmark results"
echo
echo "Produced by \`sudo make bench\` (\`bench/run.sh\`, see \`bench/README.md\`) on ${RUN_DATE:-$(date -u '+%Y-%m-%d %H:%M UTC')}"
echo "in $(printf '%.0f' "$ELAPSED") s. Every figure is measured against a baseline taken in the same run: medians of"
echo "$REPS alternating runs, with min and max."
echo
hv=$(lscpu | sed -n 's/^Hypervisor vendor: *//p' | head -1)
echo "- Machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) CPUs$([ -n "$hv" ] && echo " ($hv guest)"), $(lscpu | sed -n 's/^Thread(s) per core: *//p') thread(s) per core, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo) RAM; shared with other engineers running tests: load average $LOAD0 at the start, $LOAD1 at the end"
echo "- Kernel: \`$(uname -srm)\`; $(grep PRETTY_NAME /etc/os-release | cut -d'"' -f2)"
luajit_versions
echo "- luabpfprof: \`${PROF_VERSION:-$(git -C "$TOP" describe --always --dirty 2>/dev/null || echo '?')}\` (one copy of the binary for the whole run); perf: \`$(perf --version 2>/dev/null || echo 'not installed')\`; wrk: \`$(wrk -v 2>&1 | head -1 | cut -d' ' -f1-2)\`"
echo "- Settings: BENCH_T=$T s of wall time per throughput window, BENCH_REPS=$REPS, sampling windows of ${FIG2_WIN} s (figure 2) and ${FIG3_WIN} s (figures 3 and 5)"
echo
echo "## Headline"
echo
med() { local v=${1:-NA}; v=${v%% *}; [ "$v" = NA ] && echo "n/a" || printf "$2" "$v"; }
if has_fig 1; then
	echo "- Target overhead of luabpfprof, median at 99 / 999 / 4999 Hz (\`perf record -g\` at the same rates; \`luajit -jp\` at i10 / i1):"
	for wl in w631 numeric tables nginx; do
		[ -n "${OV[$wl,lbp99]:-}" ] || continue
		echo "  - \`$wl\`: $(med "${OV[$wl,lbp99]}" "%+.2f%%") / $(med "${OV[$wl,lbp999]}" "%+.2f%%") / $(med "${OV[$wl,lbp4999]}" "%+.2f%%") (perf $(med "${OV[$wl,perf99]}" "%+.2f%%") / $(med "${OV[$wl,perf999]}" "%+.2f%%") / $(med "${OV[$wl,perf4999]}" "%+.2f%%"); jit.p $(med "${OV[$wl,jp10]}" "%+.2f%%") / $(med "${OV[$wl,jp1]}" "%+.2f%%")); medians known to ±$(sig_level "$wl" | cut -d' ' -f1) points"
	done
fi
if has_fig 2; then
	echo "- BPF cost per sample: $(med "${BPF[d5]:-}" "%.2f") / $(med "${BPF[d20]:-}" "%.2f") / $(med "${BPF[d100]:-}" "%.2f") / $(med "${BPF[d250]:-}" "%.2f") µs at depth 5 / 20 / 100 / 250; early exit $(med "${BPF[early]:-}" "%.3f") µs at $FIG2_HZ Hz."
fi
if has_fig 3 && [ -s "$F3" ]; then
	c99=$(awk '$1 == "p1" && $2 == 99 && $4 != "NA" {print $4 * 100}' "$F3")
	c999=$(awk '$1 == "p1" && $2 == 999 && $4 != "NA" {print $4 * 100}' "$F3")
	# shellcheck disable=SC2086
	echo "- luabpfprof's own CPU, one process: $(med "$(stats $c99)" "%.2f%%") of a CPU at 99 Hz, $(med "$(stats $c999)" "%.2f%%") at 999 Hz."
fi
if has_fig 1; then
	echo "- Fidelity (unwind success over every luabpfprof run; median largest error against the ground truth at 999 Hz, luabpfprof vs jit.p at i1):"
	for wl in w631 numeric tables; do
		u=$(unwind "$wl")
		set -- $u
		[ "$1" = 0 ] && continue
		e1=$(awk -v w="$wl" '$1 == w && $3 == "luabpfprof" {print $4}' "$WORK/fig4.tsv" 2>/dev/null)
		e2=$(awk -v w="$wl" '$1 == w && $3 == "jit.p" {print $4}' "$WORK/fig4.tsv" 2>/dev/null)
		# shellcheck disable=SC2086
		echo "  - \`$wl\`: $(printf '%.2f' "$2")% of $1 samples; $(med "$(stats $e1)" "%.1f") vs $(med "$(stats $e2)" "%.1f") points"
	done
fi
echo
cat "$body"
closing
