# SPDX-License-Identifier: MIT
# Sourced by tests/deps/setup-*.sh: Debian packages unpacked into a private
# tree under .deps/ with apt-get download + dpkg -x, never installed (so the
# host keeps its packages: Debian's luajit and OpenResty's libluajit2
# conflict).  The caller runs from the checkout's top.
# shellcheck shell=bash

DEPS=.deps
tmp= # download dir of the extract in progress, removed on any exit
trap '[ -z "$tmp" ] || rm -rf "$tmp"' EXIT

# Root downloads into a root-owned dir: tell apt not to drop to _apt.
download() {
	apt-get download -qq -o APT::Sandbox::User=root "$@"
}

# extract WHO TREE PKG...: .deps/TREE holds the files of every PKG (its
# .stamp names them), or is untouched; WHO prefixes the message.
extract() {
	local who=$1 tree=$DEPS/$2; shift 2
	local want="$*" deb
	if [ -f "$tree/.stamp" ] && [ "$(head -n1 "$tree/.stamp")" = "$want" ]; then
		return 0
	fi
	mkdir -p "$DEPS"
	tmp=$(mktemp -d "$DEPS/.fetch.XXXXXX")
	# A fresh machine may have no package lists yet.
	if ! (cd "$tmp" && download "$@") 2>/dev/null; then
		apt-get update -qq
		(cd "$tmp" && download "$@")
	fi
	mkdir "$tmp/root"
	for deb in "$tmp"/*.deb; do dpkg -x "$deb" "$tmp/root"; done
	{ echo "$want"; for deb in "$tmp"/*.deb; do basename "$deb"; done; } > "$tmp/root/.stamp"
	rm -rf "$tree"
	mv "$tmp/root" "$tree"
	rm -rf "$tmp"; tmp=
	echo "$who: extracted $* into $tree"
}
