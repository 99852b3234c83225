#!/bin/bash
# Puts the LuaJIT builds the tests compare side by side under .deps/ and
# builds the C hosts (tests/hosts) against them.  Debian's luajit2
# (OpenResty) conflicts with luajit as an installed package, so both are
# extracted with apt-get download + dpkg -x instead of installed:
#   .deps/luajit2/     OpenResty 2.1-2023xxxx: usr/bin/luajit (static),
#                      usr/lib/<arch>/libluajit-5.1.so.2, headers, jit/*.lua
#   .deps/luajit-deb/  Debian's upstream 2.1 build: the same set, so hosts
#                      do not depend on which libluajit is installed.
# Idempotent: a tree whose stamp lists the same packages is left alone.
# Usage: setup-luajit.sh [deb]: with "deb" only .deps/luajit-deb (what
# `make demo` needs when no LuaJIT is installed; tests/bin/luajit runs it).
set -euo pipefail
cd "$(dirname "$0")/../.."

DEPS=.deps
tmp= # download dir of the extract in progress, removed on any exit
trap '[ -z "$tmp" ] || rm -rf "$tmp"' EXIT
OR_PKGS=(luajit2 libluajit2-5.1-2 libluajit2-5.1-dev libluajit2-5.1-common)
DEB_PKGS=(luajit libluajit-5.1-2 libluajit-5.1-dev libluajit-5.1-common)

download() {
	# Root downloads into a root-owned dir: tell apt not to drop to _apt.
	apt-get download -qq -o APT::Sandbox::User=root "$@"
}

# extract TREE PKG...: TREE holds the files of every PKG, or is untouched.
extract() {
	local tree=$DEPS/$1; shift
	local want="$*"
	if [ -f "$tree/.stamp" ] && [ "$(head -n1 "$tree/.stamp")" = "$want" ]; then
		return 0
	fi
	tmp=$(mktemp -d "$DEPS/.fetch.XXXXXX")
	# A fresh machine may have no package lists yet.
	if ! (cd "$tmp" && download "$@") 2>/dev/null; then
		apt-get update -qq
		(cd "$tmp" && download "$@")
	fi
	mkdir "$tmp/root"
	local deb
	for deb in "$tmp"/*.deb; do dpkg -x "$deb" "$tmp/root"; done
	{ echo "$want"; for deb in "$tmp"/*.deb; do basename "$deb"; done; } > "$tmp/root/.stamp"
	rm -rf "$tree"
	mv "$tmp/root" "$tree"
	rm -rf "$tmp"; tmp=
	echo "setup-luajit: extracted $* into $tree"
}

mkdir -p "$DEPS"
if [ "${1:-}" = deb ]; then
	extract luajit-deb "${DEB_PKGS[@]}"
	"$DEPS"/luajit-deb/usr/bin/luajit -e 'assert(jit.status())'
	exit 0
fi
extract luajit2 "${OR_PKGS[@]}"
extract luajit-deb "${DEB_PKGS[@]}"

# Both luajit binaries are static; fail early if that ever changes.
for bin in "$DEPS"/luajit2/usr/bin/luajit "$DEPS"/luajit-deb/usr/bin/luajit; do
	"$bin" -e 'assert(jit.status())' || { echo "setup-luajit: $bin does not run" >&2; exit 1; }
done

make -s -C tests/hosts
