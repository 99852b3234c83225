#!/bin/bash
# SPDX-License-Identifier: MIT
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

. tests/deps/extract.sh
OR_PKGS=(luajit2 libluajit2-5.1-2 libluajit2-5.1-dev libluajit2-5.1-common)
DEB_PKGS=(luajit libluajit-5.1-2 libluajit-5.1-dev libluajit-5.1-common)

mkdir -p "$DEPS"
if [ "${1:-}" = deb ]; then
	extract setup-luajit luajit-deb "${DEB_PKGS[@]}"
	"$DEPS"/luajit-deb/usr/bin/luajit -e 'assert(jit.status())'
	exit 0
fi
extract setup-luajit luajit2 "${OR_PKGS[@]}"
extract setup-luajit luajit-deb "${DEB_PKGS[@]}"

# Both luajit binaries are static; fail early if that ever changes.
for bin in "$DEPS"/luajit2/usr/bin/luajit "$DEPS"/luajit-deb/usr/bin/luajit; do
	"$bin" -e 'assert(jit.status())' || { echo "setup-luajit: $bin does not run" >&2; exit 1; }
done

make -s -C tests/hosts
