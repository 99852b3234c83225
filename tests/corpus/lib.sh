# The realistic corpus (issue 12), shared by tests/corpus/measure.sh and
# tests/t_corpus.sh: starts each program twice, with the JIT on and with
# -joff, profiles both runs at once with luabpfprof in every format the
# acceptance names (text --jp F and --jp l, folded, pprof), and reduces the
# outputs to the numbers the acceptance is about.
#
# Programs, by kind:
#   driver:NAME  tests/corpus/drivers/NAME.lua, a Debian Lua library used
#                hard in a loop (LuaJIT, libraries from /usr/share/lua/5.1)
#   nginx:api    tests/corpus/nginx/api.lua, a JSON API in nginx + Lua
#                under wrk (.deps/nginx, OpenResty's LuaJIT)
#   bench:NAME   LuaJIT's bench/NAME.lua, unpacked from $LBP_RUNTIMES
#                into $TMP, repeated by tests/corpus/repeat.lua
# Every run stays until it is stopped; the profilers stop after $CORPUS_SECS.
# shellcheck shell=bash

CORPUS=$TOP/tests/corpus
CORPUS_SECS=${CORPUS_SECS:-3}		# profiled seconds per run
CORPUS_WARM=${CORPUS_WARM:-1}		# seconds before profiling: modules loaded, traces compiled
CORPUS_HZ=${CORPUS_HZ:-999}
# Formats profiled per run; every run costs about a second of start-up
# (loading the BPF program), so the test takes fewer than measure.sh.
CORPUS_ON_FORMATS=${CORPUS_ON_FORMATS:-F l folded pb}
CORPUS_OFF_FORMATS=${CORPUS_OFF_FORMATS:-F l folded pb}
CORPUS_HOT=${CORPUS_HOT:-10}		# a -joff key at or above this % is a hot function
CORPUS_SEEN=${CORPUS_SEEN:-0.5}		# ... which must hold this % (inclusive) with the JIT on
CORPUS_LUA_PATH="$CORPUS/?.lua;/usr/share/lua/5.1/?.lua;/usr/share/lua/5.1/?/init.lua;;"
CORPUS_LUA_CPATH="/usr/lib/$(gcc -dumpmachine 2>/dev/null || echo x86_64-linux-gnu)/lua/5.1/?.so;;"
CORPUS_DRIVERS=$(cd "$CORPUS/drivers" && ls -- *.lua | sed 's/\.lua$//' | tr '\n' ' ')
CORPUS_BENCH_GLOB='luajit-bench-*.tar.gz'
CORPUS_BENCH_TGZ=$(runtimes_file "$CORPUS_BENCH_GLOB")
NGX_TREE=$TOP/.deps/nginx
NGX_LIB=$TOP/.deps/luajit2/usr/lib/$(gcc -dumpmachine 2>/dev/null || echo x86_64-linux-gnu)
RESTY_EXTRA=$TOP/.deps/resty-extra

# --- starting and stopping the programs ----------------------------------------

# corpus_bench_dir: unpacks LuaJIT's bench/ into $TMP once (never into the
# repository) and prints the directory.
corpus_bench_dir() {
	local dir=$TMP/bench
	if [ ! -f "$dir/.ready" ]; then
		[ -n "$CORPUS_BENCH_TGZ" ] ||
			{ echo "no $CORPUS_BENCH_GLOB: set LBP_RUNTIMES=DIR holding it" >&2; return 1; }
		mkdir -p "$dir"
		tar xzf "$CORPUS_BENCH_TGZ" -C "$dir" --strip-components=2 --wildcards '*/bench/*' || return 1
		touch "$dir/.ready"
	fi
	echo "$dir"
}

# corpus_bench_args NAME: "ARG INPUT" for bench program NAME, from
# PARAM_x86.txt; INPUT ("-": none) is made on first use: fasta.lua's output
# for k-nucleotide and revcomp, SUMCOL_1.txt repeated for sum-file, both
# smaller than PARAM_x86.txt names (the programs repeat anyway).
corpus_bench_args() {
	local dir param input
	dir=$(corpus_bench_dir) || return 1
	read -r _ param input <<< "$(grep "^$1[[:space:]]" "$dir/PARAM_x86.txt")"
	case $input in
	FASTA_*) input=FASTA_250000
		[ -s "$dir/$input" ] || (cd "$dir" && "$LUAJIT" fasta.lua 250000 > "$input.tmp" &&
			mv "$input.tmp" "$input") || return 1 ;;
	SUMCOL_*) input=SUMCOL_500
		[ -s "$dir/$input" ] || (cd "$dir" && for _ in $(seq 500); do cat SUMCOL_1.txt; done \
			> "$input.tmp" && mv "$input.tmp" "$input") || return 1 ;;
	esac
	echo "${param:--} ${input:--}"
}

# corpus_bench_names: the 29 programs of bench/PARAM_x86.txt.
corpus_bench_names() {
	awk '{ print $1 }' "$(corpus_bench_dir)/PARAM_x86.txt"
}

# corpus_start PROGRAM on|off LOG: starts PROGRAM with the JIT on or off;
# sets TPID (the process to profile) and appends what to stop to STOP.
corpus_start() {
	local prog=$1 mode=$2 log=$3 joff=()
	[ "$mode" = off ] && joff=(-joff)
	case $prog in
	driver:*)
		LUA_PATH=$CORPUS_LUA_PATH LUA_CPATH=$CORPUS_LUA_CPATH \
			"$LUAJIT" "${joff[@]}" "$CORPUS/drivers/${prog#driver:}.lua" 600 >"$log" 2>&1 &
		TPID=$!; STOP+=("$TPID") ;;
	bench:*)
		local name=${prog#bench:} dir args
		dir=$(corpus_bench_dir) && args=$(corpus_bench_args "$name") || return 1
		set -- $args	# ARG INPUT
		(cd "$dir" && exec "$LUAJIT" "${joff[@]}" "$CORPUS/repeat.lua" 600 "$2" "$name.lua" \
			${1#-}) >/dev/null 2>"$log" &
		TPID=$!; STOP+=("$TPID") ;;
	nginx:api)
		corpus_nginx_start "$mode" "$log" || return 1 ;;
	*)	echo "unknown program $prog" >&2; return 1 ;;
	esac
}

# corpus_stop: stops what corpus_start started (by PID, nothing else).
corpus_stop() {
	local pid
	for pid in "${STOP[@]}"; do kill "$pid" 2>/dev/null; done
	for pid in "${STOP[@]}"; do wait "$pid" 2>/dev/null; done
	STOP=()
}

# corpus_nginx_start on|off LOG: nginx (one worker) serving the JSON API of
# tests/corpus/nginx/api.lua on a free loopback port, and wrk against it for
# the rest of the run; TPID is the worker.
corpus_nginx_start() {
	local mode=$1 log=$2 run=$TMP/nginx-$1 try port master worker jit=""
	[ "$mode" = off ] && jit='require("jit").off()'
	mkdir -p "$run"
	for try in 1 2 3; do
		port=$((20000 + RANDOM % 20000))
		sed -e "s|@DIR@|$run|g; s|@TREE@|$NGX_TREE|g; s|@APP@|$CORPUS/nginx|g; s|@PORT@|$port|g" \
			-e "s|@EXTRA@|$RESTY_EXTRA/usr/share/lua/5.1|g; s|@JIT@|$jit|g" \
			"$CORPUS/nginx/nginx.conf.in" > "$run/nginx.conf"
		: > "$run/error.log"
		LD_LIBRARY_PATH=$NGX_LIB "$NGX_TREE/usr/sbin/nginx" -p "$run" -c "$run/nginx.conf" \
			-e "$run/error.log" >"$log" 2>&1 &
		master=$!
		for _ in $(seq 50); do
			worker=$(pgrep -P "$master" | head -n1)
			[ -n "$worker" ] && curl -fsS -o /dev/null "http://127.0.0.1:$port/api/orders?n=1" 2>/dev/null &&
				break
			worker=
			kill -0 "$master" 2>/dev/null || break
			sleep 0.1
		done
		if [ -n "$worker" ]; then
			STOP+=("$master")
			wrk -t1 -c4 -d600s -s "$CORPUS/nginx/wrk.lua" "http://127.0.0.1:$port" >>"$log" 2>&1 &
			STOP+=("$!")
			TPID=$worker
			return 0
		fi
		kill "$master" 2>/dev/null; wait "$master" 2>/dev/null
		grep -q 'Address already in use' "$run/error.log" || break
	done
	cat "$run/error.log" >> "$log"
	return 1
}

# corpus_jitp PROGRAM OUT: runs a driver or bench program (JIT on) under
# LuaJIT's own profiler for about $CORPUS_WARM + $CORPUS_SECS s and writes
# its `-jp=Fm0` view to OUT.jitp, for comparison only: jit.p samples at
# safe points and charges C functions to their Lua caller.
corpus_jitp() {
	local prog=$1 out=$2 secs=$((CORPUS_WARM + CORPUS_SECS)) jp
	jp="-jp=Fm0,$out.jitp"
	rm -f "$out.jitp"
	case $prog in
	driver:*)
		LUA_PATH=$CORPUS_LUA_PATH LUA_CPATH=$CORPUS_LUA_CPATH timeout $((secs * 4 + 30)) \
			"$LUAJIT" "$jp" "$CORPUS/drivers/${prog#driver:}.lua" "$secs" >/dev/null 2>&1 ;;
	bench:*)
		local name=${prog#bench:} dir args
		dir=$(corpus_bench_dir) && args=$(corpus_bench_args "$name") || return 1
		set -- $args	# ARG INPUT
		(cd "$dir" && timeout $((secs * 4 + 30)) "$LUAJIT" "$jp" "$CORPUS/repeat.lua" "$secs" \
			"$2" "$name.lua" ${1#-} >/dev/null 2>&1) ;;
	*)	return 1 ;;
	esac
	[ -s "$out.jitp" ]
}

# corpus_tvd A B: total variation distance, in points, between two text
# views (NN%  key lines): half the sum of the share differences.
corpus_tvd() {
	awk '
		FNR == 1 { f++ }
		/^ *[0-9]+%  / { p = $1; sub(/%/, "", p); k = $0; sub(/^ *[0-9]+%  /, "", k)
			if (f == 1) a[k] = p; else b[k] = p; keys[k] = 1 }
		END { for (k in keys) { d = a[k] - b[k]; t += (d < 0 ? -d : d) }
			printf "%.0f\n", t / 2 }' "$1" "$2"
}

# --- profiling ------------------------------------------------------------------

# corpus_profile PID OUT FORMAT...: one luabpfprof run on PID per FORMAT,
# all at once, for $CORPUS_SECS s: F (OUT.F, --jp F), l (OUT.l, --jp lm0:
# every line), folded (OUT.folded), pb (OUT.pb.gz, pprof); each run's
# summary line in OUT.FORMAT.err.  Waits for all of them.
corpus_profile() {
	local pid=$1 out=$2 f p=()
	shift 2
	local common=(-p "$pid" -d "$CORPUS_SECS" -F "$CORPUS_HZ")
	for f in "$@"; do
		case $f in
		F) "$PROF" "${common[@]}" --jp F >"$out.F" 2>"$out.F.err" & p+=($!) ;;
		l) "$PROF" "${common[@]}" --jp lm0 >"$out.l" 2>"$out.l.err" & p+=($!) ;;
		folded) "$PROF" "${common[@]}" -f folded >"$out.folded" 2>"$out.folded.err" & p+=($!) ;;
		pb) "$PROF" "${common[@]}" -o "$out.pb.gz" 2>"$out.pb.err" & p+=($!) ;;
		esac
	done
	wait "${p[@]}"
}

# corpus_measure PROGRAM DIR: starts PROGRAM with the JIT on and off, lets
# both warm up, profiles both at once ($CORPUS_ON_FORMATS, $CORPUS_OFF_FORMATS); outputs in DIR/PROGRAM.{on,off}.*.
# Returns nonzero (with DIR/PROGRAM.log) when a run did not start or died.
corpus_measure() {
	local prog=$1 dir=$2 base pon poff rc=0
	base=$dir/${prog//:/_}
	STOP=()
	if ! corpus_start "$prog" on "$base.on.log"; then corpus_stop; return 1; fi
	pon=$TPID
	if ! corpus_start "$prog" off "$base.off.log"; then corpus_stop; return 1; fi
	poff=$TPID
	sleep "$CORPUS_WARM"
	corpus_profile "$pon" "$base.on" $CORPUS_ON_FORMATS &
	local w=$!
	corpus_profile "$poff" "$base.off" $CORPUS_OFF_FORMATS
	wait "$w"
	kill -0 "$pon" 2>/dev/null && kill -0 "$poff" 2>/dev/null || rc=1
	corpus_stop
	return $rc
}

# corpus_log_heads BASE: the first two lines of each of BASE's program
# logs on one line: where a dying program says why (a Lua error's message
# comes before its traceback).
corpus_log_heads() {
	local log
	for log in "$1".*.log; do
		[ -s "$log" ] && printf '%s: %s| ' "${log##*/}" "$(head -n2 "$log" | tr '\n' '|')"
	done
}

# --- reading the outputs -----------------------------------------------------------

# corpus_losses OUT: every nonzero count of the summary lines of OUT's
# runs, summed by cause: "samples N" first, then "CAUSE N" per line.  The
# summary reads "N samples in ...; unwind: N cause, ...; lost: N cause, ...".
corpus_losses() {
	cat "$1".*.err 2>/dev/null | grep -h 'samples in' | awk '
		{	n = $0; sub(/^[^:]*: /, "", n)
			split(n, w, " "); total += w[1]
			sub(/^[^;]*; /, "", n); gsub(/[a-z ]+: /, "", n)
			k = split(n, parts, /[;,] */)
			for (i = 1; i <= k; i++) {
				c = parts[i]; v = c; sub(/ .*/, "", v); sub(/^[0-9]+ /, "", c)
				if (v + 0 > 0) { sum[c] += v; if (!(c in seen)) { seen[c] = 1; order[++m] = c } }
			}
		}
		END {	print "samples " total + 0
			for (i = 1; i <= m; i++) print order[i] " " sum[order[i]] }'
}

# corpus_bad OUT: "BAD SAMPLES": samples whose stack has a frame that could
# not be walked, read or symbolized (bad frames, read faults, unknown
# frames) over all samples, summed over OUT's runs.  A stack truncated at
# --max-frames is complete as far as it goes and counts as a loss only.
corpus_bad() {
	corpus_losses "$1" | awk '
		/^samples / { s = $2; next }
		/bad frame|read fault|unknown frame/ { b += $NF }
		END { print b + 0, s + 0 }'
}

# corpus_walk_bad OUT: "WALK-BAD UNRESOLVED SAMPLES": the stacks the walker
# could not complete (bad frames, read faults), the frames whose prototype
# was gone before user space read it (unknown frames: code loaded anew
# again and again, as busted's insulation and penlight's templates do),
# and all samples, summed over OUT's runs.
corpus_walk_bad() {
	corpus_losses "$1" | awk '
		/^samples / { s = $2; next }
		/bad frame|read fault/ { b += $NF }
		/unknown frame/ { u += $NF }
		END { print b + 0, u + 0, s + 0 }'
}

# corpus_keys OUT: every key of OUT's outputs, one a line: text keys, folded
# frames and pprof's strings (function and file names).
corpus_keys() {
	local f
	for f in "$1.F" "$1.l"; do [ -f "$f" ] && sed -n 's/^ *[0-9]*%  //p' "$f"; done
	[ -f "$1.folded" ] && sed 's/ [0-9]*$//' "$1.folded" | tr ';' '\n'
	[ -f "$1.pb.gz" ] && python3 "$CORPUS/pprof_strings.py" "$1.pb.gz"
	return 0
}

# corpus_raw_keys OUT / corpus_builtin_keys OUT: the distinct keys that
# are a raw address (@0x...) or a [builtin#N], comma-separated.
corpus_raw_keys() {
	corpus_keys "$1" | grep -aoE '@0x[0-9a-fA-F]+' | sort -u | head -n5 | paste -sd, -
}
corpus_builtin_keys() {
	corpus_keys "$1" | grep -aoE '\[builtin#[0-9]+\]' | sort -u | head -n5 | paste -sd, -
}

# corpus_unknown OUT: percentage of OUT.folded's samples with an [unknown]
# frame.
corpus_unknown() {
	[ -f "$1.folded" ] || { echo -; return; }
	awk '{ n = $NF; t += n; if (index($0, "[unknown")) u += n }
		END { if (t) printf "%.2f\n", 100 * u / t; else print "-" }' "$1.folded"
}

# corpus_line_error ON OFF: the largest difference, in points, between the
# `l` shares of the JIT-on run and the -joff run, and its key ("N key").
# Only Lua lines count (keys ending in :LINE), in points of all samples:
# C code has no line, and a fast function that the JIT compiles into the
# trace is a key of its own under -joff only.
corpus_line_error() {
	[ -f "$1.l" ] && [ -f "$2.l" ] || { echo "- -"; return; }
	awk '
		FNR == 1 { f++ }
		/^ *[0-9]+%  / { p = $1; sub(/%/, "", p); k = $0; sub(/^ *[0-9]+%  /, "", k)
			if (k !~ /:[0-9]+$/) next
			if (f == 1) on[k] = p; else off[k] = p
			keys[k] = 1 }
		END {	best = -1
			for (k in keys) {
				d = on[k] - off[k]
				if (d < 0) d = -d
				if (d > best || (d == best && k < bk)) { best = d; bk = k } }
			if (best < 0) print "- -"; else printf "%.0f %s\n", best, bk }' "$1.l" "$2.l"
}

# corpus_missing_hot ON OFF: the Lua functions (chunk:function keys) with
# at least $CORPUS_HOT% in the -joff run's F view that hold less than
# $CORPUS_SEEN% of the JIT-on run's folded samples anywhere on the stack,
# comma-separated.  The JIT changes the true shares, so -joff only says
# which functions must appear, not how much.
corpus_missing_hot() {
	local key out=""
	while read -r key; do
		awk -v k="$key" -v min="$CORPUS_SEEN" '
			{ n = $NF; t += n; s = $0; sub(/ [0-9]+$/, "", s)
			  if (index(";" s ";", ";" k ";")) h += n }
			END { exit !(t > 0 && 100 * h / t >= min) }' "$1.folded" ||
			out=${out:+$out,}$key
	done < <(awk -v hot="$CORPUS_HOT" '/^ *[0-9]+%  / { p = $1; sub(/%/, "", p)
		k = $0; sub(/^ *[0-9]+%  /, "", k); if (p + 0 >= hot && k ~ /:/) print k }' "$2.F")
	echo "$out"
}
