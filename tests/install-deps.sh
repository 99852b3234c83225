#!/bin/bash
# Installs the Debian (and, for tests, npm) packages the project needs.
# Usage: install-deps.sh core|test.  Lists live in tests/deps/apt.*:
# apt.core is what a build needs, every other apt.* list is for tests.
set -euo pipefail
cd "$(dirname "$0")/.."

what=${1:-core}
lists=(tests/deps/apt.core)
[ "$what" = test ] && lists=(tests/deps/apt.*)

missing=()
for pkg in $(grep -hv '^#' "${lists[@]}"); do
	dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "installing: ${missing[*]}"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		"${missing[@]}" >/dev/null
fi

if [ "$what" = test ]; then
	for script in tests/deps/setup-*.sh; do
		[ -x "$script" ] && "$script"
	done
fi
exit 0
