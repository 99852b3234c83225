#!/bin/bash
# SPDX-License-Identifier: MIT
# Puts Debian's nginx with the Lua module (OpenResty's lua-nginx-module)
# under .deps/nginx for tests/t_all.sh: an "nginx + Lua" host among the
# LuaJIT processes -a must find.  Extracted with apt-get download + dpkg -x,
# never installed: libnginx-mod-http-lua would pull OpenResty's libluajit2
# (which removes Debian's luajit) and a system nginx service.  At run time
# the module loads .deps/luajit2's libluajit-5.1.so.2 via LD_LIBRARY_PATH.
# Idempotent: a tree whose stamp lists the same packages is left alone.
set -euo pipefail
cd "$(dirname "$0")/../.."

. tests/deps/extract.sh
TREE=$DEPS/nginx
PKGS=(nginx nginx-common libnginx-mod-http-lua libnginx-mod-http-ndk lua-resty-core
      lua-resty-lrucache)

extract setup-nginx nginx "${PKGS[@]}"
"$TREE/usr/sbin/nginx" -v 2>/dev/null || { echo "setup-nginx: nginx does not run" >&2; exit 1; }
