#!/bin/bash
# Puts Debian's nginx with the Lua module (OpenResty's lua-nginx-module)
# under .deps/nginx for tests/t_all.sh: an "nginx + Lua" host among the
# LuaJIT processes -a must find.  Extracted with apt-get download + dpkg -x,
# never installed: libnginx-mod-http-lua would pull OpenResty's libluajit2
# (which removes Debian's luajit) and a system nginx service.  At run time
# the module loads .deps/luajit2's libluajit-5.1.so.2 via LD_LIBRARY_PATH.
# Idempotent: a tree whose stamp lists the same packages is left alone.
set -euo pipefail
cd "$(dirname "$0")/../.."

DEPS=.deps
TREE=$DEPS/nginx
PKGS=(nginx nginx-common libnginx-mod-http-lua libnginx-mod-http-ndk lua-resty-core
      lua-resty-lrucache)
tmp=
trap '[ -z "$tmp" ] || rm -rf "$tmp"' EXIT

want="${PKGS[*]}"
if [ -f "$TREE/.stamp" ] && [ "$(head -n1 "$TREE/.stamp")" = "$want" ]; then
	exit 0
fi
mkdir -p "$DEPS"
tmp=$(mktemp -d "$DEPS/.fetch.XXXXXX")
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
"$TREE/usr/sbin/nginx" -v 2>/dev/null || { echo "setup-nginx: nginx does not run" >&2; exit 1; }
echo "setup-nginx: extracted ${PKGS[*]} into $TREE"
