#!/bin/bash
# SPDX-License-Identifier: MIT
# Re-makes the walker snapshots (tests/walker/README.md): for each row
# below, runs the workload on that LuaJIT build and takes one snapshot of
# the kind named with tests/walker/record (make walker-record) in up to
# 800 stops (a trace exit is a few in a thousand), retried up to three
# times when no walk of that kind was met or the kernel walker
# counted none of those met.  Needs root (BPF, ptrace).
#   bash tests/walker/record.sh [NAME...]    only the rows named
set -u
cd "$(dirname "$0")/../.."
export TOP=$PWD
source tests/variants.sh
out=tests/walker/snapshots
rec=.output/walker/record
mkdir -p "$out"

# name  build  kind  workload and arguments (options such as -joff first)
ROWS=(
	"deb-interp      deb-bin        interp  vmstates.lua"
	"deb-trace       deb-bin        trace   vmstates.lua"
	"deb-gc          deb-bin        gc      vmstates.lua"
	"deb-exit        deb-bin        exit    jit_dyn.lua"
	"deb-cfunc       deb-bin        cfunc   vmstates.lua"
	"deb-coro        deb-bin        coro    coro.lua"
	"deb-ffi         deb-bin        ffi     -joff native_libm.lua 60"
	"deb-ffi-trace   deb-bin        ffi     native_libm.lua 60"
	"deb-inlined     deb-bin        inlined jit_inline.lua"
	"deb-callback    deb-bin        interp  -joff callbacks.lua"
	"or-interp       or-bin         interp  vmstates.lua"
	"or-inlined      or-bin         inlined jit_inline.lua"
	"or-coro         or-bin         coro    stitch.lua"
	"nogc64-interp   deb-nogc64-bin interp  vmstates.lua"
	"nogc64-trace    deb-nogc64-bin trace   vmstates.lua"
	"nogc64-cfunc    deb-nogc64-bin cfunc   vmstates.lua"
	"nogc64-coro     deb-nogc64-bin coro    coro.lua"
	"nogc64-ffi      deb-nogc64-bin ffi     -joff native_libm.lua 60"
	"or-nogc64-interp  or-nogc64-bin interp  vmstates.lua"
	"or-nogc64-inlined or-nogc64-bin inlined jit_inline.lua"
)

one() {
	local name=$1 build=$2 kind=$3; shift 3
	local args=() script cmd pid rc try
	while [ "${1#-}" != "$1" ]; do args+=("$1"); shift; done
	script=tests/workloads/$1; shift
	cmd=$(variant_cmd "$build" "${args[@]}" "$script" "$@")
	for try in 1 2 3; do
		bash -c "exec $cmd" >/dev/null 2>&1 &
		pid=$!
		sleep 2		# past start-up: traces compiled, phases running
		"$rec" -p "$pid" -k "$kind" -n 800 -o "$out/$name" \
			-c "$name: $kind sample of $build running $script${args[*]:+ ${args[*]}}"
		rc=$?
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		[ "$rc" -eq 0 ] && return 0
	done
	echo "record.sh: $name: no snapshot taken" >&2
	return 1
}

make -s walker-record || exit 1
status=0
for row in "${ROWS[@]}"; do
	read -r -a f <<<"$row"
	if [ $# -gt 0 ]; then
		want=0
		for n in "$@"; do [ "$n" = "${f[0]}" ] && want=1; done
		[ "$want" -eq 1 ] || continue
	fi
	one "${f[@]}" || status=1
done
exit $status
