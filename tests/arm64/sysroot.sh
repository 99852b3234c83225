#!/bin/bash
# SPDX-License-Identifier: MIT
# sysroot.sh [DIR]: an arm64 Debian 12 userland for the cross build and the
# arm64 guest, made of Debian's own arm64 packages downloaded with
# `apt-get download` through a private apt configuration that names arm64
# (dpkg's architectures and the system's sources are untouched: they are only
# read, for the mirror they name) and unpacked with `dpkg -x`, never
# installed.  Prints the sysroot's path.  Cached: the download and the tree
# are made once per package list (the tree's .stamp names it).
#
#   $LBP_CACHE/arm64/apt      the private apt configuration, lists, debs
#   $LBP_CACHE/arm64/sysroot  libc, the libraries luabpfprof links against
#                             (-dev packages for the build), busybox, bash
#   $LBP_CACHE/arm64/sysroot/opt/luajit-deb, opt/luajit2: Debian's LuaJIT
#                             2.1 and OpenResty's (inside the guest's root)
#
# Exit status 3 when the registry cannot serve a package (the caller SKIPs).
set -euo pipefail
CACHE=${LBP_CACHE:-/var/cache/luabpfprof}/arm64
log() { echo "arm64-sysroot: $*" >&2; }

# The libraries luabpfprof links against (ncurses: luabpfprof top), their
# -dev packages, and what the guest runs besides: busybox (the initramfs),
# bash and the tools of the guest script, the C hosts' libm (in libc6).  Each library's own dependencies
# come from apt (below).
BUILD_PKGS=(libc6 libc6-dev libbpf1 libbpf-dev libelf1 libelf-dev libdw1 libdw-dev
	    zlib1g zlib1g-dev libcurl4 libcurl4-openssl-dev libzstd1 liblzma5 libbz2-1.0
	    libncursesw6 libtinfo6 libncurses-dev
	    busybox-static bash dash coreutils grep sed findutils mawk procps)
DEB_LUAJIT=(luajit libluajit-5.1-2 libluajit-5.1-dev libluajit-5.1-common)
OR_LUAJIT=(luajit2 libluajit2-5.1-2 libluajit2-5.1-dev libluajit2-5.1-common)

source "$(dirname "$0")/../kernels/apt.sh"
cache_dir "$CACHE"

apt_dir=$CACHE/apt
key=/usr/share/keyrings/debian-archive-keyring.gpg
mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial" "$apt_dir/debs"
m=$(mirror) || m=http://deb.debian.org/debian
sec=$(mirror security) || sec=http://deb.debian.org/debian-security
cat >"$apt_dir/sources.list" <<L
deb [arch=arm64 signed-by=$key] $m bookworm main
deb [arch=arm64 signed-by=$key] $m bookworm-updates main
deb [arch=arm64 signed-by=$key] $sec bookworm-security main
L
APT=(-o APT::Architecture=arm64 -o APT::Architectures::=arm64
     -o Dir::Etc::SourceList="$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
     -o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=/dev/null
     -o Dir::State::Lists="$apt_dir/lists" -o Dir::State::status=/dev/null
     -o Dir::Cache="$apt_dir" -o Dir::Cache::archives="$apt_dir/archives"
     -o APT::Sandbox::User=root)
if ! ls "$apt_dir"/lists/*arm64_Packages* >/dev/null 2>&1; then
	apt-get "${APT[@]}" -qq update >&2 || { log "no arm64 package lists"; exit 3; }
fi

# closure PKG...: the packages and what they depend on (pre-dependencies
# included, recommendations not), one a line.
closure() {
	apt-cache "${APT[@]}" depends --recurse --no-recommends --no-suggests --no-conflicts \
		--no-breaks --no-replaces --no-enhances "$@" 2>/dev/null |
		awk '/^[a-z0-9]/ && !/^ / { print $1 }' | sed 's/:arm64$//' | sort -u
}

# debfile PKG: PKG's downloaded .deb, or nothing.
debfile() {
	find "$apt_dir/debs" -maxdepth 1 \( -name "$1_*_arm64.deb" -o -name "$1_*_all.deb" \) | sort -V | tail -n 1
}

# tree NAME PKG...: $CACHE/NAME holds every PKG (and, for the sysroot, their
# dependencies) unpacked; made once per list.
tree() {
	local name=$1 dir=$CACHE/$1 want pkgs deb p
	shift
	want="$*"
	if [ -f "$dir/.stamp" ] && [ "$(head -n 1 "$dir/.stamp")" = "$want" ]; then
		return 0
	fi
	if [ "$name" = sysroot ]; then
		mapfile -t pkgs < <(closure "$@")
	else
		pkgs=("$@")
	fi
	[ "${#pkgs[@]}" -gt 0 ] || { log "apt knows none of: $*"; exit 3; }
	rm -rf "$dir.new"
	mkdir -p "$dir.new"
	for p in "${pkgs[@]}"; do
		deb=$(debfile "$p")
		if [ -z "$deb" ]; then
			(cd "$apt_dir/debs" && apt-get "${APT[@]}" -qq download "$p:arm64" >&2) ||
				{ log "the registry does not serve $p:arm64"; exit 3; }
			deb=$(debfile "$p")
		fi
		dpkg -x "$deb" "$dir.new"
	done
	# Mount points of the guest (tests/kernels/boot.sh): the checkout, the
	# files for the host.
	[ "$name" != sysroot ] || mkdir -p "$dir.new/lbp" "$dir.new/out"
	{ echo "$want"; printf '%s\n' "${pkgs[@]}"; } >"$dir.new/.stamp"
	rm -rf "$dir"
	mv "$dir.new" "$dir"
	log "unpacked ${#pkgs[@]} packages into $dir"
}
tree sysroot "${BUILD_PKGS[@]}"
tree sysroot/opt/luajit-deb "${DEB_LUAJIT[@]}"
tree sysroot/opt/luajit2 "${OR_LUAJIT[@]}"
echo "$CACHE"
