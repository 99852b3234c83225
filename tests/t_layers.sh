#!/bin/bash
# SPDX-License-Identifier: MIT
# The house rules of user/, checked on every run.  First, the include graph
# only goes down the layers.  A file of rank N may include headers of its
# own folder and of ranks below N, never of a sibling folder of the same
# rank; the ranks are user/README.md's.  Also
# checks that every include names its layer ("base/log.h", not "log.h"), so
# that the graph is visible from the #include lines alone.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh

# Folder:rank, lowest first, as user/README.md's table.
LAYERS=(base:0 proc:1 container:1 luajit:2 heap:3 jit:3 native:3 nginx:3 model:4
	symbolize:5 sample:6 session:7 report:8 ship:9 cli:10)
declare -A rank
for l in "${LAYERS[@]}"; do rank[${l%:*}]=${l#*:}; done

bad=0 edges=0
for f in user/*/*.c user/*/*.h; do
	layer=${f#user/}; layer=${layer%%/*}
	if [ -z "${rank[$layer]+x}" ]; then
		fail "layer of $f" "folder '$layer' is not a layer in tests/t_layers.sh"
		bad=1; continue
	fi
	while IFS= read -r inc; do
		edges=$((edges + 1))
		case $inc in
		*.skel.h|sampler.h|lj_consts.h) continue ;;	# generated skeletons, bpf/
		*/*) ;;
		*) fail "include in $f" "\"$inc\" names no layer"; bad=1; continue ;;
		esac
		to=${inc%%/*}
		if [ -z "${rank[$to]+x}" ]; then
			fail "include in $f" "\"$inc\": no layer '$to'"; bad=1
		elif [ "${rank[$to]}" -gt "${rank[$layer]}" ]; then
			fail "include in $f" "\"$inc\" goes up from $layer to $to"; bad=1
		elif [ "$to" != "$layer" ] && [ "${rank[$to]}" -eq "${rank[$layer]}" ]; then
			fail "include in $f" "\"$inc\" goes sideways from $layer to $to"; bad=1
		fi
	done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
done
# The check must see the graph: a tree with no edges means the sed broke.
check "include lines read ($edges)" [ "$edges" -gt 100 ]
[ $bad -eq 0 ] && pass "include graph goes only down: ${LAYERS[*]%%:*}"

# Small files with one job: no .c file over 600 lines, no function over 120.
# A function body opens with "{" alone in column 0 and closes with "}" there.
MAX_FILE=600 MAX_FUNC=120
# long_functions FILE: one line per function over MAX_FUNC lines.
long_functions() {
	awk -v f="$1" -v max=$MAX_FUNC '
		/^[A-Za-z_].*\(/ { sig = FNR; name = $0; sub(/\(.*/, "", name); sub(/.*[ *]/, "", name) }
		/^\{$/ { start = sig ? sig : FNR }
		/^\}/ && start {
			if (FNR - start + 1 > max) printf "%s: %s() has %d lines\n", f, name, FNR - start + 1
			start = 0; sig = 0
		}' "$1"
}
long=$(for f in user/*/*.c bpf/*.c bpf/*.h; do
	n=$(grep -vc 'SPDX-License-Identifier' "$f")	# the licence line is no code
	case $f in *.c) [ "$n" -gt $MAX_FILE ] && echo "$f has $n lines" ;; esac
	long_functions "$f"
done)
if [ -z "$long" ]; then
	pass "no .c file over $MAX_FILE lines, no function over $MAX_FUNC"
else
	while IFS= read -r l; do fail "size" "$l"; done <<<"$long"
fi
# The size check must see functions: a 133-line one is reported.
probe=$TMP/probe.c
{ echo 'static int f(void)'; echo '{'; for _ in $(seq 130); do echo '	x();'; done; echo '}'; } >"$probe"
got=$(long_functions "$probe")
check "the size check finds a 133-line function" [ "$got" = "$probe: f() has 133 lines" ]
# Every source file names its licence (LICENSE says which applies where).
nolic=$(git -C "$TOP" ls-files -- '*.c' '*.h' '*.sh' '*.py' '*.lua' '*.go' '*.js' '*.mk' Makefile |
	grep -v '^vmlinux/\|/corpus/' | while read -r f; do
		grep -qs 'SPDX-License-Identifier: ' "$TOP/$f" || echo "$f"
	done)
if [ -z "$nolic" ]; then
	pass "every source file has an SPDX-License-Identifier line"
else
	fail "SPDX lines" "missing in: $(echo "$nolic" | head -n 10 | tr '\n' ' ')"
fi
bpf_wrong=$(git -C "$TOP" grep -L 'SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause' -- 'bpf/*' | head -n 5)
check "bpf/ is GPL-2.0-only OR BSD-2-Clause${bpf_wrong:+: not $bpf_wrong}" [ -z "$bpf_wrong" ]

# BPF headers compile on their own: each includes what it uses (prelude,
# access, maps: docs/design.md), so that include order is no interface.
# offcpu.bpf.h and alloc.bpf.h are the bodies of sampler.bpf.c's other
# programs, which call its walk entry points: they are part of that unit.
# Unused static functions are what a header alone has.
bpf_alone() {
	clang -O2 -target bpf -D__TARGET_ARCH_"$2" -Ivmlinux/"$2" -Ibpf -Wall -Werror \
		-Wno-unused-function -fsyntax-only -x c "$1" 2>&1 | head -3
}
if command -v clang >/dev/null; then
	alone=$(for h in bpf/*.bpf.h; do
		case $h in bpf/offcpu.bpf.h|bpf/alloc.bpf.h) continue ;; esac
		for arch in x86 arm64; do
			err=$(bpf_alone "$h" "$arch")
			[ -n "$err" ] && echo "$h ($arch): $(head -1 <<<"$err")"
		done
	done)
	if [ -z "$alone" ]; then
		pass "every BPF header compiles on its own (x86, arm64)"
	else
		while IFS= read -r l; do fail "BPF header alone" "$l"; done <<<"$alone"
	fi
	# The check must see a header that leans on its includer.
	printf '#include "prelude.bpf.h"\nstatic int g(void) { return bump_undeclared(); }\n' >"$TMP/lean.bpf.h"
	check "the header check finds a name a header does not declare" \
		[ -n "$(bpf_alone "$TMP/lean.bpf.h" x86)" ]
else
	echo "SKIP: BPF headers alone: no clang"
fi
rm -rf "$TMP"
exit 0
