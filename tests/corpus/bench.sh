#!/bin/bash
# LuaJIT's benchmark collection under luabpfprof: unpacks
# $LBP_RUNTIMES/luajit-bench-*.tar.gz into $TMP (never into the
# repository), runs each of its 29 programs with PARAM_x86.txt's argument,
# repeated by tests/corpus/repeat.lua, with the JIT on and with -joff, and
# prints measure.sh's table (bad frames, raw-address and builtin keys,
# line-share error JIT on vs -joff, hot functions missing under the JIT,
# distance to `luajit -jp=F`).
# Usage: tests/corpus/bench.sh [measure.sh options] [bench:NAME...]
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
opts=()
while [ $# -gt 0 ] && [[ $1 == -* ]]; do
	opts+=("$1")
	case $1 in -d|-F|-k) opts+=("$2"); shift ;; esac
	shift
done
exec "$TOP/tests/corpus/measure.sh" "${opts[@]}" "${@:-bench}"
