#!/bin/bash
# SPDX-License-Identifier: MIT
# make-corpus.sh: (re)takes the seed corpus, tests/fuzz/corpus/*.snap, from
# real LuaJIT processes: each workload of tests/workloads on each LuaJIT
# build at hand (tests/variants.sh), with the JIT on and off.  Needs root
# (BPF) and `make fuzz-snapshot`.  The seeds are small (a few KB): only
# what symbolizing the sampled stacks read.
set -u
cd "$(dirname "$0")/../.."
TOP=$PWD
# shellcheck source=/dev/null
. tests/variants.sh
SNAP=.output/fuzz/snapshot
OUT=tests/fuzz/corpus
WL=tests/workloads
[ -x "$SNAP" ] || { echo "make fuzz-snapshot first" >&2; exit 1; }
mkdir -p "$OUT"

take() {	# take NAME VARIANT FLAGS WORKLOAD [ARGS]
	local name=$1 v=$2 flags=$3 wl=$4; shift 4
	# shellcheck disable=SC2086
	variant_exec "$v" $flags "$WL/$wl.lua" 60 "$@" >/dev/null 2>&1 &
	local pid=$!
	sleep 1.5
	"$SNAP" -p "$pid" -d 1.5 -o "$OUT/$name.snap" || rm -f "$OUT/$name.snap"
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
}

take_jit() {	# take_jit NAME VARIANT MODE: jit_health.lua takes its mode first
	local name=$1 v=$2 mode=$3
	variant_exec "$v" "$WL/jit_health.lua" "$mode" 60 >/dev/null 2>&1 &
	local pid=$!
	sleep 1.5
	"$SNAP" -p "$pid" -d 1.5 -o "$OUT/$name.snap" || rm -f "$OUT/$name.snap"
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
}

for v in "${VARIANTS[@]}"; do
	for wl in w631 pcall coro cfuncs zones vmstates demo; do
		take "$wl-$v" "$v" "" "$wl"
	done
	take "deep-$v" "$v" "" deep
	take "churn-$v" "$v" "" churn
	take "cfuncs-joff-$v" "$v" -joff cfuncs
	take "pcall-joff-$v" "$v" -joff pcall
	take_jit "jit-fnew-$v" "$v" fnew
	take_jit "jit-leave-$v" "$v" leave
done
ls -la "$OUT"
