#!/bin/bash
# SPDX-License-Identifier: MIT
# Installs the Debian (and, for tests, npm) packages the project needs.
# Usage: install-deps.sh core|test.  Lists live in tests/deps/apt.*:
# apt.core is what a build needs, every other apt.* list is for tests.
#
# Set-up never removes a package.  It prints every package it will
# install, asks apt what that would do (apt-get -s) and refuses, naming
# them, if anything would be removed; the install itself runs with
# --no-remove as well.  LuaJIT and nginx are never installed: they
# conflict with each other (tests/deps/setup-luajit.sh extracts them).
#   LBP_APT_LISTS="FILE..."  other lists (tests of this script)
#   LBP_DEPS_DRY_RUN=1       stop before installing
set -euo pipefail
cd "$(dirname "$0")/.."

what=${1:-core}
lists=(tests/deps/apt.core)
[ "$what" = test ] && lists=(tests/deps/apt.*)
[ -n "${LBP_APT_LISTS:-}" ] && read -r -a lists <<<"$LBP_APT_LISTS"

missing=()
for pkg in $(grep -hv '^#' "${lists[@]}" | sort -u); do
	dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "set-up: will install these Debian packages: ${missing[*]}"
	apt-get update -qq
	sim=$(DEBIAN_FRONTEND=noninteractive apt-get -s install --no-install-recommends \
		"${missing[@]}" 2>&1) || { echo "$sim" >&2; exit 1; }
	removed=$(awk '/^Remv / {print $2}' <<<"$sim" | tr '\n' ' ')
	if [ -n "$removed" ]; then
		echo "set-up: refusing: installing them would remove ${removed% }; set-up never removes a package" >&2
		exit 1
	fi
	extra=$(awk '/^Inst / {print $2}' <<<"$sim" | grep -vxF -f <(printf '%s\n' "${missing[@]}") |
		tr '\n' ' ' || true)
	[ -n "$extra" ] && echo "set-up: and what they need: ${extra% }"
	[ -n "${LBP_DEPS_DRY_RUN:-}" ] && exit 0
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-remove --no-install-recommends \
		"${missing[@]}"
fi
[ -n "${LBP_DEPS_DRY_RUN:-}" ] && exit 0

if [ "$what" = test ]; then
	for script in tests/deps/setup-*.sh; do
		[ -x "$script" ] && "$script"
	done
fi
exit 0
