#!/bin/bash
# SPDX-License-Identifier: MIT
# LuaJIT's benchmark collection (bench/ of the LuaJIT test suite, the
# tarball luajit-bench-*.tar.gz in $LBP_RUNTIMES: no registry serves it)
# profiled by luabpfprof and by jit.p, with the distance between the two
# views.
#
# Sourced by tests/t_jit_truth.sh for its helpers; run alone it prints the
# full table:
#   tests/jitbench.sh [-m MODE] [-b OLD_LUABPFPROF] [PROGRAM...]
# columns: program, TVD(ours, jit.p) with the JIT on, the same with C
# functions' time charged to the Lua frame under them (as jit.p, which
# cannot sample inside C, charges it), TVD(jit.p JIT on, jit.p -joff),
# with -b the TVD of OLD_LUABPFPROF against jit.p, and the functions our
# notes say the traces inlined without a snapshot.
#
# The total variation distance of two views is half the sum, over all keys,
# of the absolute difference of their shares, in points (0..100).
# shellcheck shell=bash

JB_TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
JB_GLOB='luajit-bench-*.tar.gz'
JB_TARBALL=${JB_TARBALL:-$([ -n "${LBP_RUNTIMES:-}" ] &&
	ls -- "$LBP_RUNTIMES"/$JB_GLOB 2>/dev/null | head -1)}
JB_LJ=${JB_LJ:-$JB_TOP/.deps/luajit-deb/usr/bin/luajit}
JB_SHARE=$JB_TOP/.deps/luajit-deb/usr/share/luajit-2.1.0-beta3
JB_HZ=${JB_HZ:-997}

# Arguments that run each program about 1-3 s with the JIT on (PARAM_x86.txt
# sizes run for minutes on this machine); `<FILE` feeds FILE on stdin.
jb_args() {
	case $1 in
	array3d) echo 450 ;; binary-trees) echo 15 ;; chameneos) echo 2e6 ;;
	coroutine-ring) echo 2.5e7 ;; euler14-bit) echo 5e6 ;; fannkuch) echo 10 ;;
	fasta) echo 4e6 ;; k-nucleotide) echo "0 <fasta" ;; life) echo "" ;;
	mandelbrot) echo 3000 ;; mandelbrot-bit) echo 3000 ;; md5) echo 15000 ;;
	nbody) echo 6e6 ;; nsieve) echo 11 ;; nsieve-bit) echo 12 ;;
	nsieve-bit-fp) echo 11 ;; partialsums) echo 1.5e7 ;;
	pidigits-nogmp) echo 2800 ;; ray) echo 7 ;; recursive-ack) echo 11 ;;
	recursive-fib) echo 38 ;; revcomp) echo "0 <fasta" ;;
	scimark-fft) echo 15000 ;; scimark-lu) echo 5000 ;; scimark-sor) echo 20000 ;;
	scimark-sparse) echo 5e4 ;; series) echo 4000 ;; spectral-norm) echo 3500 ;;
	sum-file) echo "0 <sumcol" ;;
	*) return 1 ;;
	esac
}

JB_ALL=(array3d binary-trees chameneos coroutine-ring euler14-bit fannkuch fasta
	k-nucleotide life mandelbrot mandelbrot-bit md5 nbody nsieve nsieve-bit
	nsieve-bit-fp partialsums pidigits-nogmp ray recursive-ack recursive-fib
	revcomp scimark-fft scimark-lu scimark-sor scimark-sparse series
	spectral-norm sum-file)

# jb_unpack DIR: the collection in DIR/bench, with the inputs some
# programs read (fasta.lua's output, a column of numbers).
jb_unpack() {
	local dir=$1
	[ -f "$JB_TARBALL" ] ||
		{ echo "no $JB_GLOB: set LBP_RUNTIMES=DIR holding it" >&2; return 1; }
	mkdir -p "$dir/bench" || return 1
	tar xzf "$JB_TARBALL" -C "$dir/bench" --strip-components=1 || return 1
	JB_DIR=$dir/bench/bench
	(cd "$JB_DIR" && "$JB_LJ" fasta.lua 1000000 >"$dir/fasta.txt") || return 1
	awk '{ l[NR] = $0 } END { for (i = 0; i < 3000; i++) for (j = 1; j <= NR; j++) print l[j] }' \
		"$JB_DIR/SUMCOL_1.txt" >"$dir/sumcol.txt"
	JB_INPUTS=$dir
}

# jb_cmd PROG: sets JB_ARGV and JB_STDIN for one program.
jb_cmd() {
	local a in
	a=$(jb_args "$1") || return 1
	JB_STDIN=/dev/null
	case $a in
	*"<"*) in=${a#*<}; a=${a%% <*}; JB_STDIN=$JB_INPUTS/$in.txt ;;
	esac
	JB_ARGV=("$JB_DIR/$1.lua")
	[ -n "$a" ] && JB_ARGV+=("$a")
	return 0
}

# jb_jitp MODE PROG OUT [LUAJIT-OPTION...]: jit.p's view of one run.
jb_jitp() {
	local mode=$1 prog=$2 out=$3; shift 3
	jb_cmd "$prog" || return 1
	(cd "$JB_DIR" && LUA_PATH="$JB_SHARE/?.lua;;" "$JB_LJ" "$@" "-jp=$mode,$out" \
		"${JB_ARGV[@]}" <"$JB_STDIN" >/dev/null 2>&1)
}

# jb_ours BIN MODE PROG OUT: luabpfprof's view of one run (Lua samples only,
# as jit.p has no others).
jb_ours() {
	local bin=$1 mode=$2 prog=$3 out=$4
	jb_cmd "$prog" || return 1
	(cd "$JB_DIR" && "$bin" -F "$JB_HZ" --lua-only --jp "$mode" -o "$out" -- \
		"$JB_LJ" "${JB_ARGV[@]}" <"$JB_STDIN" >/dev/null 2>"$out.err")
}

# jb_fold FILE HOW: a view of depth 2 (F2) as a view of depth 1: each key's
# first frame (HOW=leaf), or its first frame jit.p can see (HOW=lua): a C
# function's (an ELF symbol, lib.so+0xOFFSET) time goes to the frame
# under it, where jit.p, sampling only at the VM's safe points, puts it.
jb_fold() {
	awk -v how="$2" '
		/^ ?[0-9]+%  / {
			p = $0; sub(/^ */, "", p); sub(/%.*/, "", p)
			k = $0; sub(/^ ?[0-9]+%  /, "", k)
			n = split(k, f, " < ")
			key = f[1]
			if (how == "lua" && n > 1 && (f[1] ~ /\+0x[0-9a-f]+$/ || f[1] !~ /[.:[@]/))
				key = f[2]
			s[key] += p
		}
		END { for (k in s) printf "%2d%%  %s\n", s[k], k }' "$1" | sort -rn
}

# jb_notes ERRFILE: the functions our notes say were inlined without a
# snapshot, comma-separated: the name, or chunk:line for one without.
jb_notes() {
	sed -n 's/^luabpfprof: note: trace [0-9]*\( ([^)]*)\)\? inlined \(.*\) without a snapshot: .*/\2/p' \
		"$1" | tr ',' '\n' | sed 's/^ *//' |
		awk -F: '{ print $NF ~ /^[0-9]+$/ ? $0 : $NF }' | sort -u | paste -sd, -
}

# jb_tvd A B: total variation distance of two text views' top-level keys,
# in whole points.
jb_tvd() {
	awk '
		FNR == 1 { f++ }
		/^ ?[0-9]+%  / {
			p = $0; sub(/^ */, "", p); sub(/%.*/, "", p)
			k = $0; sub(/^ ?[0-9]+%  /, "", k)
			s[f, k] += p; keys[k] = 1
		}
		END {
			d = 0
			for (k in keys) { x = s[1, k] - s[2, k]; d += x < 0 ? -x : x }
			printf "%d\n", d / 2 + 0.5
		}' "$1" "$2"
}

# jb_main: the standalone table.
jb_main() {
	local mode=F old="" tmp p
	while getopts "m:b:" o; do
		case $o in m) mode=$OPTARG ;; b) old=$OPTARG ;; *) return 2 ;; esac
	done
	shift $((OPTIND - 1))
	tmp=$(mktemp -d /tmp/lbp-jitbench.XXXXXX)
	jb_unpack "$tmp" || return 1
	local progs=("$@")
	[ ${#progs[@]} -eq 0 ] && progs=("${JB_ALL[@]}")
	printf "%-16s %6s %6s %9s %6s  %s\n" program "ours" "C-in" "jitp-off" "${old:+before}" \
		"inlined without a snapshot"
	for p in "${progs[@]}"; do
		local d="$tmp/$p" ours lua jp on_off before=""
		mkdir -p "$d"
		jb_jitp "$mode" "$p" "$d/jp-on.txt"
		jb_jitp "$mode" "$p" "$d/jp-off.txt" -joff
		jb_ours "${JB_NEW:-$JB_TOP/luabpfprof}" "${mode}2" "$p" "$d/ours2.txt"
		jb_fold "$d/ours2.txt" leaf >"$d/ours.txt"
		jb_fold "$d/ours2.txt" lua >"$d/ours-lua.txt"
		ours=$(jb_tvd "$d/ours.txt" "$d/jp-on.txt")
		lua=$(jb_tvd "$d/ours-lua.txt" "$d/jp-on.txt")
		on_off=$(jb_tvd "$d/jp-on.txt" "$d/jp-off.txt")
		if [ -n "$old" ]; then
			jb_ours "$old" "$mode" "$p" "$d/old.txt"
			before=$(jb_tvd "$d/old.txt" "$d/jp-on.txt")
		fi
		printf "%-16s %6s %6s %9s %6s  %s\n" "$p" "$ours" "$lua" "$on_off" "$before" \
			"$(jb_notes "$d/ours2.txt.err")"
	done
	echo "(views kept in $tmp)"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	jb_main "$@"
fi
