#!/bin/bash
# SPDX-License-Identifier: MIT
# Puts Debian's lua-nginx-string and lua-nginx-cookie (OpenResty's
# lua-resty-string and lua-resty-cookie, as the nginx.* modules) under
# .deps/resty-extra for the realistic corpus's nginx application
# (tests/corpus/nginx/).  Extracted with apt-get download + dpkg -x, never
# installed: lua-resty-* style packages depend on OpenResty's LuaJIT, whose
# installation removes Debian's luajit.  Idempotent.
set -euo pipefail
cd "$(dirname "$0")/../.."

. tests/deps/extract.sh
extract setup-resty-extra resty-extra lua-nginx-string lua-nginx-cookie
