#!/bin/bash
# Puts Debian's lua-nginx-string and lua-nginx-cookie (OpenResty's
# lua-resty-string and lua-resty-cookie, as the nginx.* modules) under
# .deps/resty-extra for the realistic corpus's nginx application
# (tests/corpus/nginx/).  Extracted with apt-get download + dpkg -x, never
# installed: lua-resty-* style packages depend on OpenResty's LuaJIT, whose
# installation removes Debian's luajit.  Idempotent.
set -euo pipefail
cd "$(dirname "$0")/../.."

TREE=.deps/resty-extra
PKGS=(lua-nginx-string lua-nginx-cookie)
tmp=
trap '[ -z "$tmp" ] || rm -rf "$tmp"' EXIT

want="${PKGS[*]}"
if [ -f "$TREE/.stamp" ] && [ "$(head -n1 "$TREE/.stamp")" = "$want" ]; then
	exit 0
fi
mkdir -p .deps
tmp=$(mktemp -d .deps/.fetch.XXXXXX)
download() { (cd "$tmp" && apt-get download -qq -o APT::Sandbox::User=root "${PKGS[@]}"); }
if ! download 2>/dev/null; then
	apt-get update -qq
	download
fi
mkdir "$tmp/root"
for deb in "$tmp"/*.deb; do dpkg -x "$deb" "$tmp/root"; done
{ echo "$want"; for deb in "$tmp"/*.deb; do basename "$deb"; done; } > "$tmp/root/.stamp"
rm -rf "$TREE"
mv "$tmp/root" "$TREE"
rm -rf "$tmp"; tmp=
echo "setup-resty-extra: extracted ${PKGS[*]} into $TREE"
