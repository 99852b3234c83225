#!/bin/bash
# The include graph of user/ only goes down the layers.  A file in layer N
# may include headers of layers 0..N; the order is user/README.md's.  Also
# checks that every include names its layer ("base/log.h", not "log.h"), so
# that the graph is visible from the #include lines alone.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh

LAYERS=(base target model symbolize sample session report ship cli)
declare -A rank
for i in "${!LAYERS[@]}"; do rank[${LAYERS[$i]}]=$i; done

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
		*.skel.h|sampler.h) continue ;;		# generated skeletons, bpf/
		*/*) ;;
		*) fail "include in $f" "\"$inc\" names no layer"; bad=1; continue ;;
		esac
		to=${inc%%/*}
		if [ -z "${rank[$to]+x}" ]; then
			fail "include in $f" "\"$inc\": no layer '$to'"; bad=1
		elif [ "${rank[$to]}" -gt "${rank[$layer]}" ]; then
			fail "include in $f" "\"$inc\" goes up from $layer to $to"; bad=1
		fi
	done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
done
# The check must see the graph: a tree with no edges means the sed broke.
check "include lines read ($edges)" [ "$edges" -gt 100 ]
[ $bad -eq 0 ] && pass "include graph goes only down: ${LAYERS[*]}"
exit 0
