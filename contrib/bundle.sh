#!/bin/bash
# SPDX-License-Identifier: MIT
# contrib/bundle.sh ROOT PREFIX BINARY MANPAGE: lays out a luabpfprof that
# runs on a host where none of its libraries are installed (`make bundle`).
#
# ROOT/PREFIX/bin/luabpfprof  BINARY, linked by the Makefile with PREFIX/lib's
#                             dynamic loader as its interpreter and an RPATH
#                             of PREFIX/lib then $ORIGIN/../lib (the latter
#                             needs /proc; DT_RPATH, not RUNPATH, so
#                             that it also serves libcurl's own dependencies)
# ROOT/PREFIX/lib/            every shared library ldd lists, under the name
#                             the binary asks for, and the dynamic loader
# ROOT/PREFIX/share/...       the man page, LIBRARIES (library, Debian package,
#                             version) and each package's copyright file
# ROOT/etc/ssl/certs/         the CA bundle, for the container image (the
#                             tarball has PREFIX only: a host has its own)
#
# Why a bundle and not a static binary: Debian ships libbpf, libelf, libdw,
# zlib, liblzma, libbz2 and libcurl as static archives, but not the Kerberos,
# LDAP, SASL, nghttp2, ssh2, rtmp, psl and zstd libraries libcurl is linked
# with, so `-static` cannot link against Debian's libcurl.  Bundling the
# build host's glibc with its own loader keeps every library at the version
# Debian tests together, and needs nothing of the host but its kernel.
# Installed at PREFIX, the binary runs by itself; anywhere else, run
# DIR/lib/ld-linux-*.so.* DIR/bin/luabpfprof.
set -eu
# Whatever the builder's umask (0000, 0002): the bundle is untarred as root
# into /opt, and a group- or world-writable lib/ there lets any user replace
# the libc that root's agent loads.  The modes are set below once more,
# whole, and the Makefile's tar forces them again.
umask 022
root=$1 prefix=$2 bin=$3 man=$4
dest=$root$prefix
interp=$(readelf -p .interp "$bin" | sed -n 's/^ *\[ *0\] *//p')
[ -n "$interp" ] || { echo "bundle.sh: $bin has no interpreter" >&2; exit 1; }

rm -rf "$root"
mkdir -p "$dest/bin" "$dest/lib" "$dest/share/man/man1" "$dest/share/doc/luabpfprof/copyright"
install -m 755 "$bin" "$dest/bin/luabpfprof"
install -m 644 "$man" "$dest/share/man/man1/luabpfprof.1"

# pkg_of FILE: the Debian package that installed FILE (merged /usr aware).
pkg_of() {
	local real
	real=$(readlink -f "$1")
	dpkg -S "$real" 2>/dev/null || dpkg -S "${real#/usr}" 2>/dev/null ||
		dpkg -S "/usr$real" 2>/dev/null || true
}

manifest=$dest/share/doc/luabpfprof/LIBRARIES
echo "# library	Debian package	version (copied from the build host by contrib/bundle.sh)" >"$manifest"
# "name => /path (addr)" for the libraries; the loader, named by the
# binary's interpreter (PREFIX/lib/ld-*), is the build host's.
ldd "$bin" | awk '$2 == "=>" && $3 ~ /^\// { n = split($1, p, "/"); print p[n], $3 }' >"$root/.libs"
while read -r name path; do
	# the loader keeps its own name: it is the binary's interpreter
	cp -L "$path" "$dest/lib/$name"
	chmod 644 "$dest/lib/$name"
	pkg=$(pkg_of "$path" | head -1 | cut -d: -f1)
	[ -n "$pkg" ] || { echo "bundle.sh: no Debian package owns $path" >&2; exit 1; }
	ver=$(dpkg-query -W -f '${Version}' "$pkg" 2>/dev/null | head -1)
	printf '%s\t%s\t%s\n' "$name" "$pkg" "$ver" >>"$manifest"
	cp "/usr/share/doc/$pkg/copyright" "$dest/share/doc/luabpfprof/copyright/$pkg" 2>/dev/null || true
done <"$root/.libs"
rm "$root/.libs"

# Every mode fixed: directories and the programs 0755, the rest 0644.
find "$dest" -type d -exec chmod 0755 {} +
find "$dest" -type f -exec chmod 0644 {} +
chmod 0755 "$dest/bin/luabpfprof" "$dest/lib/$(basename "$interp")"

# /tmp for the image: a FROM scratch image has no shell to make it.
mkdir -p -m 1777 "$root/tmp"
if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
	mkdir -p "$root/etc/ssl/certs"
	cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/"
fi
