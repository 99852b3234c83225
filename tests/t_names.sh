#!/bin/bash
# SPDX-License-Identifier: MIT
# One stable, resolvable name per C and fast function, the same in every
# format and every run.  tests/workloads/names.lua (and, in nginx,
# tests/nginx/names.lua) call library functions through local aliases
# ("alias_sort"), so a name taken from the call site shows.  On upstream and
# OpenResty LuaJIT, executables and C hosts, with jit/vmdef.lua installed
# and hidden (a private mount namespace puts empty directories over every
# share/luajit-* the profiler would look in), five profilers attached at
# once write text, folded, SVG, pprof and speedscope.  In every output:
#   - no [builtin#N], no absolute address (@0x..., 0x...), no alias name;
#   - string.gsub, table.sort, require (a lua_CFunction) and, under the C
#     host, chost.spin: the same spelling in every format (coroutine.resume,
#     table.concat and string.upper are rarely the leaf under the JIT: they
#     are held to the no-alias rule only);
#   - the host's C entry frame is dropped from whole stacks, --keep-root
#     brings it back with a name (an ELF symbol or file+0xVADDR);
#   - pprof: C frames carry their address and the mapping of their file,
#     with the build ID readelf reports for it.
# nginx (OpenResty's LuaJIT, no vmdef.lua installed with it or hidden):
#   ngx.say is ngx.say in every format, never say/alias_say/an address.
source "$(dirname "$0")/lib.sh"
source "$TOP/tests/variants.sh"

HZ=499
SECS=3
export HOME=$TMP GOCACHE=$TMP/gocache GOPATH=$TMP/gopath GOFLAGS=-mod=mod GOTOOLCHAIN=local
export PPROF_TOOLS= PPROF_BINARY_PATH=/nonexistent
FORMATS="text folded svg pprof speedscope"
ALIASES="alias_gsub alias_sort alias_concat alias_resume alias_create alias_upper
alias_require alias_spin alias_say alias_headers alias_ffistring shout say sort concat
resume gsub"

# hidden CMD...: runs CMD with every jit/vmdef.lua the profiler could find
# covered by an empty tmpfs, in a mount namespace of its own.
hidden() {
	local dirs=() d
	for d in /usr/share/luajit* /usr/local/share/luajit* \
		/usr/local/openresty/luajit/share/luajit* "$TOP"/.deps/*/usr/share/luajit*; do
		[ -d "$d" ] && dirs+=("$d")
	done
	exec unshare -m --propagation private bash -c \
		'n=$1; shift; for d in "${@:1:$n}"; do mount -t tmpfs none "$d" || exit 1; done
		 shift "$n"; exec "$@"' _ "${#dirs[@]}" "${dirs[@]}" "$@"
}

# profile_all PID TAG [ARGS...]: the five formats at once into $TMP/TAG.*,
# the profiler's -v log of the folded run into $TMP/TAG.log.
profile_all() {
	local pid=$1 tag=$2 waits=() f; shift 2
	"$PROF" -p "$pid" -d "$SECS" -F "$HZ" "$@" --jp F >"$TMP/$tag.text" 2>/dev/null &
	waits+=($!)
	"$PROF" -p "$pid" -d "$SECS" -F "$HZ" "$@" -v -o "$TMP/$tag.folded" 2>"$TMP/$tag.log" &
	waits+=($!)
	for f in svg pb.gz speedscope.json; do
		"$PROF" -p "$pid" -d "$SECS" -F "$HZ" "$@" -o "$TMP/$tag.$f" 2>/dev/null &
		waits+=($!)
	done
	wait "${waits[@]}"
}

# names TAG FORMAT: the frame names of one output, one per line.
names() {
	local t=$TMP/$1
	case $2 in
	text) sed -n 's/^ *[0-9]*%  //p' "$t.text" ;;
	folded) sed 's/ [0-9]*$//' "$t.folded" | tr ';' '\n' ;;
	svg) grep -o '<title>[^&<]*' "$t.svg" | sed 's/<title>//' | sed 's/ *$//' ;;
	speedscope) grep -o '"name":"[^"]*"' "$t.speedscope.json" | sed 's/"name":"//; s/"$//' ;;
	pprof)
		go tool pprof -raw "$t.pb.gz" 2>/dev/null |
			awk '/^Locations/ { on = 1; next } /^Mappings/ { on = 0 }
			     on && $3 ~ /^M=/ { print $4 }' ;;
	esac | sort -u
}

# folded_share TAG NAME MODE: NAME's share (percent, integer) of the
# folded output's samples: MODE incl (any frame) or self (the leaf).
folded_share() {
	awk -v n="$2" -v mode="$3" '{
		c = $NF; k = $0; sub(/ [0-9]+$/, "", k); total += c
		m = split(k, f, ";")
		if (mode == "self") { if (f[m] == n) hit += c; next }
		for (i = 1; i <= m; i++) if (f[i] == n) { hit += c; break }
	} END { printf "%d", total ? 100 * hit / total : 0 }' "$TMP/$1.folded"
}

# check_names TAG LABEL EXPECTED...: in every format, no [builtin#N],
# address or alias; every EXPECTED name in the folded output; and in each
# other format (written by its own profiler at the same time) those with
# 5% of the samples or more (self time for the text view, which lists
# leaves): the same spelling everywhere.
check_names() {
	local tag=$1 label=$2 f bad a n missing mode samples; shift 2
	samples=$(awk '{ s += $NF } END { print s + 0 }' "$TMP/$tag.folded" 2>/dev/null)
	for f in $FORMATS; do
		names "$tag" "$f" >"$TMP/$tag.$f.names"
		n=$(wc -l <"$TMP/$tag.$f.names")
		bad=$(grep -E '^\[builtin#|^@0x|(^|[^+])0x[0-9a-f]{6,}' "$TMP/$tag.$f.names" | head -3 |
			tr '\n' ' ')
		for a in $ALIASES; do
			grep -qx "$a" "$TMP/$tag.$f.names" && bad+="$a "
		done
		if [ "$n" -gt 2 ] && [ -z "$bad" ]; then
			pass "$label $f: no [builtin#N], address or call-site name ($n names)"
		else
			fail "$label $f" "$n names; bad: ${bad:-none}; $(head -c 300 "$TMP/$tag.$f.names" | tr '\n' ' ')"
		fi
		missing=
		mode=incl
		[ "$f" = text ] && mode=self
		for a in "$@"; do
			if [ "$f" = folded ] || [ "$(folded_share "$tag" "$a" "$mode")" -ge 5 ]; then
				grep -qxF "$a" "$TMP/$tag.$f.names" || missing+="$a "
			fi
		done
		if [ -z "$missing" ]; then
			pass "$label $f: $* named so ($samples samples)"
		else
			fail "$label $f" "missing $missing($samples samples); got $(tr '\n' ' ' <"$TMP/$tag.$f.names" | head -c 400)"
		fi
	done
}

# vmdef_state TAG: "found" or "hidden", from the profiler's -v log.
vmdef_state() {
	if grep -q 'fast-function names from .*vmdef.lua' "$TMP/$1.log"; then echo found
	elif grep -q 'no matching jit/vmdef.lua' "$TMP/$1.log"; then echo hidden
	else echo unknown; fi
}

run_variant() {
	local v=$1 mode=$2 tag=$1.$2 want
	local expect=(string.gsub table.sort require)
	[[ $v == *-host ]] && expect+=(chost.spin)
	# Interpreted only: compiled, ffi.string is no frame of its own.
	[[ $v == nojit-bin ]] && expect+=(ffi.string)
	if [ "$mode" = hidden ]; then
		start_bg hidden bash -c 'source "$TOP/tests/variants.sh"; names_exec "$@"' _ \
			"$v" "$WL/names.lua" 30
	else
		start_bg names_exec "$v" "$WL/names.lua" 30
	fi
	local pid=$BGPID
	sleep 0.7
	profile_all "$pid" "$tag"
	[ "$mode" = hidden ] && want=hidden || want=found
	check "$v ($mode vmdef.lua): the profiler saw it $want" [ "$(vmdef_state "$tag")" = "$want" ]
	check_names "$tag" "$v ($mode vmdef.lua)" "${expect[@]}"
	if [[ $v == *-bin ]]; then
		# luajit's pmain (lua_cpcall) under every stack: named with
		# --keep-root, absent without.
		"$PROF" -p "$pid" -d 1 -F "$HZ" --keep-root -o "$TMP/$tag.root.folded" 2>/dev/null
		local root
		root=$(sed 's/ [0-9]*$//' "$TMP/$tag.root.folded" | grep -v '\[host\]' |
			cut -d';' -f2 | sort | uniq -c | sort -nr | awk 'NR == 1 { print $2 }')
		check "$v ($mode): --keep-root keeps the host's C entry, named ($root)" \
			bash -c "[[ '$root' =~ ^(luajit\+0x[0-9a-f]+|[A-Za-z_][A-Za-z0-9_]*)\$ ]] && [ '$root' != '[unknown]' ]"
		check "$v ($mode): without --keep-root it is dropped" \
			bash -c "[ -n '$root' ] && ! grep -qF ';$root;' '$TMP/$tag.folded'"
	fi
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	export TOP
}

# check_pprof_mapping TAG FILE: a C frame's location carries its address
# and a mapping of FILE with FILE's build ID.
check_pprof_mapping() {
	local tag=$1 file=$2 id raw
	id=$(readelf -n "$file" 2>/dev/null | awk '/Build ID/ { print $3; exit }')
	raw=$(go tool pprof -raw "$TMP/$tag.pb.gz" 2>/dev/null)
	check "$tag pprof: a mapping of $(basename "$file") with its build ID ${id:0:12}..." \
		bash -c "[ -n '$id' ] && grep -A100 '^Mappings' <<<'$raw' | grep -F '$file' | grep -qF '$id'"
	check "$tag pprof: require's location has its address and that mapping" \
		bash -c "grep -E '^ +[0-9]+: 0x[0-9a-f]+ M=([2-9]|[1-9][0-9]) require ' <<<'$raw' | grep -vq ' 0x0 '"
}

# nojit-bin: Debian's sources built without the JIT, whose fast-function
# ids after jit.util's differ; hidden, the built-in table must be chosen
# by the names in the VM's tables.
names_exec() {
	if [ "$1" = nojit-bin ]; then
		shift
		exec env "LUA_PATH=$TOP/.deps/luajit-deb-nojit/$_V_SHARE/?.lua;;" \
			"$TOP/.deps/luajit-deb-nojit/usr/bin/luajit" "$@"
	fi
	variant_exec "$@"
}
export -f names_exec

export TOP
VARS=()
for v in deb-bin or-bin deb-host or-host; do
	variant_desc "$v" >/dev/null 2>&1 && _variant_argv "$v" 2>/dev/null && VARS+=("$v")
done
for v in "${VARS[@]}"; do
	for mode in installed hidden; do
		run_variant "$v" "$mode"
	done
done
# Non-GC64 hosts (32-bit references, native C pointers) and the build
# without the JIT: vmdef.lua hidden, the harder case.
for v in $NOGC64_VARIANTS; do
	[[ $v == *-host ]] && run_variant "$v" hidden
done
# Only where the profiler knows the build (the layouts table does not hold
# one without the JIT yet): test_ffnames checks its table meanwhile.
if [ -x "$TOP/.deps/luajit-deb-nojit/usr/bin/luajit" ]; then
	start_bg names_exec nojit-bin "$WL/names.lua" 5
	sleep 0.5
	if "$PROF" -p "$BGPID" -d 0.2 -o "$TMP/nojit.probe.folded" 2>/dev/null; then
		kill "$BGPID"
		run_variant nojit-bin hidden
	else
		kill "$BGPID"
		echo "note: the build without the JIT is not profiled yet: its names untested here"
	fi
fi
check_pprof_mapping deb-bin.installed "$(readlink -f "$(variant_vmobj deb-bin)")"
check_pprof_mapping or-host.hidden "$(readlink -f "$(variant_vmobj or-host)")"

# The same function, the same name in every run: the C and fast-function
# names of each run are spelled the same (any name seen twice with
# different spellings would show as an alias above); here the sets of the
# expected names agree between installed and hidden vmdef.lua.
for v in "${VARS[@]}"; do
	a=$(grep -xE 'string\.gsub|table\.sort|require|chost\.spin' \
		"$TMP/$v.installed.folded.names" | tr '\n' ' ')
	b=$(grep -xE 'string\.gsub|table\.sort|require|chost\.spin' \
		"$TMP/$v.hidden.folded.names" | tr '\n' ' ')
	check "$v: the same names with and without vmdef.lua ($a)" [ "$a" = "$b" ]
done

# nginx: OpenResty's LuaJIT; its vmdef.lua hidden too.
source "$TOP/tests/nginx/lib.sh"	# TREE, OR_LIB, nginx_render_conf
if [ ! -x "$TREE/usr/sbin/nginx" ] || ! command -v wrk >/dev/null; then
	fail "nginx" "no $TREE/usr/sbin/nginx or no wrk (tests/deps/setup-nginx.sh)"
	exit 0
fi
nginx_run() {
	local mode=$1 run=$TMP/nginx.$1 port master worker try
	mkdir -p "$run"
	for try in 1 2 3; do
		port=$((20000 + RANDOM % 20000))
		nginx_render_conf names.conf.in "$run" "$port"
		if [ "$mode" = hidden ]; then
			start_bg hidden env LD_LIBRARY_PATH="$OR_LIB" "$TREE/usr/sbin/nginx" -p "$run" \
				-c "$run/nginx.conf" -e "$run/error.log"
		else
			start_bg env LD_LIBRARY_PATH="$OR_LIB" "$TREE/usr/sbin/nginx" -p "$run" \
				-c "$run/nginx.conf" -e "$run/error.log"
		fi
		master=$BGPID
		worker=
		for _ in $(seq 50); do
			worker=$(pgrep -x -P "$master" nginx | head -1)
			# Our worker answers (not another test's server on this port).
			[ -n "$worker" ] && curl -sf "http://127.0.0.1:$port/work" 2>/dev/null |
				grep -qx "pid=$worker" && break
			worker=
			kill -0 "$master" 2>/dev/null || break
			sleep 0.1
		done
		[ -n "$worker" ] && break
		kill "$master" 2>/dev/null
		wait "$master" 2>/dev/null
	done
	if [ -z "$worker" ]; then
		fail "nginx ($mode vmdef.lua)" "did not start: $(tail -c 300 "$run/error.log")"
		return
	fi
	# Load until every profiler is done: on a busy host one may take
	# seconds to load its BPF program and start its -d clock late.
	wrk -t1 -c8 -d60s "http://127.0.0.1:$port/work" >"$run/wrk.txt" 2>&1 &
	local load=$!
	sleep 0.5
	profile_all "$worker" "nginx.$mode"
	kill -INT "$load" 2>/dev/null
	wait "$load"
	kill "$master" 2>/dev/null
	wait "$master" 2>/dev/null
	local want=found
	[ "$mode" = hidden ] && want=hidden
	check "nginx ($mode vmdef.lua): the profiler saw it $want" [ "$(vmdef_state "nginx.$mode")" = "$want" ]
	check_names "nginx.$mode" "nginx ($mode vmdef.lua)" ngx.say table.sort string.gsub
}
nginx_run installed
nginx_run hidden
