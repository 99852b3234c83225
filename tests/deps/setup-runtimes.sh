#!/bin/bash
# SPDX-License-Identifier: MIT
# Builds the LuaJIT sources in $LBP_RUNTIMES for tests/t_runtimes.sh and
# tests/t_heap.sh (no package registry serves them):
#   head-gc64, head-nogc64    LuaJIT's v2.1 branch head
#   orhead-gc64, orhead-nogc64 OpenResty's luajit2 head
#   v20                       the v2.0 branch (non-GC64 only), which the
#                             profiler must recognise and refuse by name
# Each build is `make` in an unpacked copy (plus XCFLAGS for non-GC64);
# the tests run src/luajit with LUA_PATH at src/ for jit/*.lua.
#
# Builds are cached outside the checkout, so that fresh clones on the same
# machine (CI) do not rebuild: $LBP_CACHE (default /var/cache/luabpfprof),
# a root-owned directory no one else can write, one folder per build keyed
# by the tarball's SHA-256 and the flags.  From scratch: about 20 s of CPU
# per build; cached: a few milliseconds.  Without $LBP_RUNTIMES the script
# says so and builds nothing (the tests then skip those checks, saying so).
set -euo pipefail
cd "$(dirname "$0")/../.."

SRC=${LBP_RUNTIMES:-}
CACHE=${LBP_CACHE:-/var/cache/luabpfprof}/runtimes
STAMP_REV=1
work=
trap '[ -z "$work" ] || rm -rf "$work"' EXIT
log() { echo "setup-runtimes: $*"; }

if [ -z "$SRC" ] || [ ! -d "$SRC" ]; then
	log "LBP_RUNTIMES${SRC:+=$SRC} names no directory: nothing to build"
	exit 0
fi

# A cache we trust: ours, and writable by nobody else.
mkdir -p -m 0700 "$CACHE"
for d in "$CACHE" "$(dirname "$CACHE")"; do
	if [ -L "$d" ] || [ "$(stat -c %u "$d")" != 0 ] ||
	   [ $(( 0$(stat -c %a "$d") & 022 )) -ne 0 ]; then
		log "refusing cache $d: not a root-owned directory closed to others" >&2
		exit 1
	fi
done
# t_runtimes and t_heap run this too, and may run side by side: one at a
# time, so that none replaces a tree the other is about to use.
exec 9>"$CACHE/.lock"
flock 9

# build NAME TARBALL-GLOB XCFLAGS: CACHE/NAME/src/luajit, built once.
build() {
	local name=$1 tarball xcflags=$3 sum want tree=$CACHE/$1
	tarball=$(ls -- "$SRC"/$2 2>/dev/null | head -n1)
	if [ -z "$tarball" ]; then
		log "no tarball $2 in $SRC"
		return 0
	fi
	sum=$(sha256sum "$tarball" | cut -c1-16)
	want="$STAMP_REV $sum $xcflags"
	if [ -f "$tree/.stamp" ] && [ "$(cat "$tree/.stamp")" = "$want" ] &&
	   [ -x "$tree/src/luajit" ]; then
		return 0
	fi
	work=$(mktemp -d "$CACHE/.build.XXXXXX")
	tar -xzf "$tarball" -C "$work"
	local src
	src=$(find "$work" -mindepth 1 -maxdepth 1 -type d | head -n1)
	make -C "$src" -j2 -s XCFLAGS="$xcflags" >"$work/build.log" 2>&1 ||
		{ log "build of $name failed:"; tail -5 "$work/build.log" >&2; exit 1; }
	echo "$want" >"$src/.stamp"
	rm -rf "$tree"
	mv "$src" "$tree"
	rm -rf "$work"; work=
	log "built $name from $(basename "$tarball")"
}

build head-gc64 'luajit-2.1-*.tar.gz' ''
build head-nogc64 'luajit-2.1-*.tar.gz' '-DLUAJIT_DISABLE_GC64'
build orhead-gc64 'luajit2-openresty-*.tar.gz' ''
build orhead-nogc64 'luajit2-openresty-*.tar.gz' '-DLUAJIT_DISABLE_GC64'
build v20 'luajit-2.0-*.tar.gz' ''
