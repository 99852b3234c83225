#!/bin/bash
# Measures luabpfprof on the realistic corpus (issue 12) and prints a table,
# one row per program:
#   samples   samples of the JIT-on run / the -joff run (four profilers each)
#   bad%      samples with a bad frame, read fault or unknown frame, JIT on / off
#   unk%      samples with an [unknown] frame in the folded output, on / off
#             (today's folded output drops the bad frame instead)
#   raw       raw-address keys (@0x...) in any format, either run
#   builtin   [builtin#N] keys in any format, either run
#   l-err     largest `--jp l` line-share difference JIT on vs -joff (points)
#   missing   hot Lua functions of the -joff run absent with the JIT on
#   jp-tvd    total variation distance (points) between --jp F and
#             `luajit -jp=F` of a separate run, both with the JIT on
#             (drivers and bench only; -J skips it)
#   losses    every nonzero loss of the summary lines, JIT on
# Usage: tests/corpus/measure.sh [-d SECS] [-F HZ] [-k DIR [-r]] [-J] [-m] [PROGRAM|SET...]
#   SET: drivers (default: drivers and nginx), nginx, bench, all;
#   PROGRAM: driver:NAME, bench:NAME, nginx:api.  -k keeps the outputs in DIR;
#   -r reads the outputs a former -k DIR run kept instead of running again;
#   -m prints the table in markdown.
# Needs root (BPF).  Runs one program at a time, both runs at once.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
keep='' jitp=1 reread=''
fmt='%-22s %-11s %-11s %-11s %-5s %-7s %-24s %-28s %-6s %s\n'
while getopts d:F:k:Jrm o; do
	case $o in
	d) export CORPUS_SECS=$OPTARG ;;
	F) export CORPUS_HZ=$OPTARG ;;
	k) keep=$OPTARG ;;
	J) jitp= ;;
	r) reread=1 ;;
	m) fmt='| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' ;;
	*) echo "usage: $0 [-d SECS] [-F HZ] [-k DIR [-r]] [-J] [-m] [PROGRAM|SET...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
own_tmp=${TMP:-}
source "$TOP/tests/lib.sh"
source "$TOP/tests/corpus/lib.sh"
out=${keep:-$TMP/measure}
mkdir -p "$out"

progs=()
for a in "${@:-drivers nginx}"; do
	for w in $a; do
		case $w in
		drivers) for d in $CORPUS_DRIVERS; do progs+=("driver:$d"); done ;;
		nginx) progs+=(nginx:api) ;;
		bench) for b in $(corpus_bench_names); do progs+=("bench:$b"); done ;;
		all) for d in $CORPUS_DRIVERS; do progs+=("driver:$d"); done
		     progs+=(nginx:api)
		     for b in $(corpus_bench_names); do progs+=("bench:$b"); done ;;
		*) progs+=("$w") ;;
		esac
	done
done

# pct BAD SAMPLES
pct() { awk -v b="$1" -v s="$2" 'BEGIN { if (s > 0) printf "%.2f", 100 * b / s; else printf "-" }'; }

# shellcheck disable=SC2059
printf "$fmt" program samples bad% unk% raw builtin l-err missing jp-tvd "losses (JIT on)"
[[ $fmt == '|'* ]] && echo '|---|---|---|---|---|---|---|---|---|---|' 
tb=0 ts=0
for p in "${progs[@]}"; do
	base=$out/${p//:/_}
	if [ -n "$reread" ]; then
		[ -f "$base.on.F.err" ] || { printf '%-22s no outputs in %s\n' "$p" "$out"; continue; }
	elif ! corpus_measure "$p" "$out"; then
		printf '%-22s did not run: %s\n' "$p" "$(tail -n3 "$base".*.log 2>/dev/null | tr '\n' '|')"
		continue
	fi
	read -r bon son <<< "$(corpus_bad "$base.on")"
	read -r boff soff <<< "$(corpus_bad "$base.off")"
	tb=$((tb + bon + boff)) ts=$((ts + son + soff))
	raw=$( { corpus_raw_keys "$base.on"; corpus_raw_keys "$base.off"; } | tr ',' '\n' | sort -u | grep -c .)
	bi=$( { corpus_builtin_keys "$base.on"; corpus_builtin_keys "$base.off"; } | tr ',' '\n' | sort -u | grep -c .)
	read -r lerr lkey <<< "$(corpus_line_error "$base.on" "$base.off")"
	miss=$(corpus_missing_hot "$base.on" "$base.off")
	losses=$(corpus_losses "$base.on" | sed 1d | awk '{ n = $NF; $NF = ""; printf "%s%s%d", sep, $0, n; sep = ", " }')
	tvd=-
	if [ -n "$reread" ]; then [ -s "$base.jitp" ] && tvd=$(corpus_tvd "$base.on.F" "$base.jitp")
	elif [ -n "$jitp" ] && corpus_jitp "$p" "$base"; then tvd=$(corpus_tvd "$base.on.F" "$base.jitp"); fi
	# shellcheck disable=SC2059
	printf "$fmt" "$p" "$son/$soff" \
		"$(pct "$bon" "$son")/$(pct "$boff" "$soff")" \
		"$(corpus_unknown "$base.on")/$(corpus_unknown "$base.off")" "$raw" "$bi" \
		"$lerr ${lkey:0:21}" "${miss:--}" "$tvd" "${losses:--}"
done
echo "total: bad $tb of $ts samples ($(pct "$tb" "$ts")%)"
if [ -n "$keep" ]; then echo "outputs in $out"; elif [ -z "$own_tmp" ]; then rm -rf "$TMP"; fi
exit 0
