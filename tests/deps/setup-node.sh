#!/bin/bash
# SPDX-License-Identifier: MIT
# Installs the npm test tools of tests/node from the committed lockfile
# (npm ci), only when node_modules is missing or older than the lockfile,
# so that later test runs work offline.  Install scripts are skipped: no
# package needs one, and playwright-core drives Debian's chromium.
set -euo pipefail
cd "$(dirname "$0")/../node"

stamp=node_modules/.lbp-lockfile
if [ -f "$stamp" ] && cmp -s package-lock.json "$stamp"; then
	exit 0
fi
if ! command -v npm >/dev/null; then
	# Debian's nodejs comes without npm (NodeSource's includes it).
	# Printed, and never at the cost of a package (tests/install-deps.sh).
	echo "set-up: will install the Debian package npm"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-remove --no-install-recommends npm
fi
echo "tests/node: npm ci"
npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
cp package-lock.json "$stamp"
