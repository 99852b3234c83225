# SPDX-License-Identifier: MIT
# Sourced by tests/kernels/boot.sh and tests/arm64/sysroot.sh: what both
# need to download Debian packages through a private apt configuration.
# shellcheck shell=bash

# cache_dir DIR: DIR made if missing, refused (exit 1) unless it and its
# parent are root's own and closed to others: its contents are run as root.
cache_dir() {
	local d
	mkdir -p -m 0700 "$1"
	for d in "$1" "$(dirname "$1")"; do
		if [ -L "$d" ] || [ "$(stat -c %u "$d")" != 0 ] || [ $(( 0$(stat -c %a "$d") & 022 )) -ne 0 ]; then
			echo "refusing cache $d: not a root-owned directory closed to others" >&2
			exit 1
		fi
	done
}

# mirror [security]: the first Debian mirror (or security mirror) the
# system's own sources name.
mirror() {
	{ awk '/^URIs:/ { for (i = 2; i <= NF; i++) print $i }' /etc/apt/sources.list.d/*.sources 2>/dev/null
	  awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; break } }' \
		/etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null
	} | if [ "${1:-}" = security ]; then grep -m1 -- '-security'; else grep -v -- '-security' | grep -m1 .; fi
}
