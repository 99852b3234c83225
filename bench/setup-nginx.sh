#!/bin/bash
# SPDX-License-Identifier: MIT
# setup-nginx.sh: nginx + lua-nginx-module for the nginx row of figure 1,
# without touching the system's LuaJIT.  Installing libnginx-mod-http-lua
# would replace Debian's libluajit-5.1-2 with OpenResty's libluajit2 (and
# remove /usr/bin/luajit), so instead, unless nginx and its Lua module are
# already installed, the packages are extracted (apt-get download + dpkg -x,
# never installed) into bench/.deps/nginx and run from there with
# LD_LIBRARY_PATH pointing at the extracted OpenResty libluajit.
# Prints shell assignments (NGINX_BIN, NGINX_MODDIR, NGINX_LIBPATH,
# NGINX_LUAPATH, NGINX_SRC) on stdout; exits 1, with the reason on stderr,
# when nginx cannot be set up here.
set -euo pipefail
cd "$(dirname "$0")"
arch=$(gcc -dumpmachine 2>/dev/null || echo x86_64-linux-gnu)

if [ -x /usr/sbin/nginx ] && [ -f /usr/lib/nginx/modules/ngx_http_lua_module.so ]; then
	echo "NGINX_BIN=/usr/sbin/nginx"
	echo "NGINX_MODDIR=/usr/lib/nginx/modules"
	echo "NGINX_LIBPATH="
	echo "NGINX_LUAPATH='/usr/share/lua/5.1/?.lua;/usr/share/luajit-2.1.0-beta3/?.lua'"
	echo "NGINX_SRC='installed packages'"
	exit 0
fi

root=$PWD/.deps/nginx
pkgs=(nginx libnginx-mod-http-ndk libnginx-mod-http-lua lua-resty-core
      lua-resty-lrucache libluajit2-5.1-2 libluajit2-5.1-common)
if [ ! -f "$root/.complete" ]; then
	command -v apt-get >/dev/null || { echo "no apt-get to fetch nginx" >&2; exit 1; }
	rm -rf "$root"
	mkdir -p "$root/debs"
	chmod 777 "$root/debs"	# apt's _apt user downloads into it
	if ! (cd "$root/debs" && apt-get download "${pkgs[@]}" >/dev/null 2>&1); then
		apt-get update -qq >/dev/null 2>&1 || true
		(cd "$root/debs" && apt-get download "${pkgs[@]}" >/dev/null 2>&1) ||
			{ echo "apt-get download ${pkgs[*]} failed" >&2; exit 1; }
	fi
	for deb in "$root"/debs/*.deb; do dpkg -x "$deb" "$root"; done
	rm -rf "$root/debs"
	touch "$root/.complete"
fi
[ -x "$root/usr/sbin/nginx" ] || { echo "extracted nginx is missing" >&2; exit 1; }
lib=$root/usr/lib/$arch
missing=$(LD_LIBRARY_PATH=$lib ldd "$root/usr/sbin/nginx" \
	"$root/usr/lib/nginx/modules/ngx_http_lua_module.so" | grep 'not found' || true)
[ -z "$missing" ] || { echo "nginx libraries missing: $missing" >&2; exit 1; }
echo "NGINX_BIN=$root/usr/sbin/nginx"
echo "NGINX_MODDIR=$root/usr/lib/nginx/modules"
echo "NGINX_LIBPATH=$lib"
echo "NGINX_LUAPATH='$root/usr/share/lua/5.1/?.lua;$root/usr/share/luajit-2.1.0-beta3/?.lua'"
echo "NGINX_SRC='Debian packages extracted to bench/.deps/nginx, OpenResty libluajit2'"
