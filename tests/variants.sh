# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Sourced by tests: the LuaJIT builds a workload can run on.  Labels:
#   deb-bin   Debian's upstream luajit executable (static VM in the exe)
#   or-bin    OpenResty's luajit (Debian luajit2), extracted to .deps/luajit2
#   deb-host  tests/hosts/lhost on Debian's libluajit-5.1.so.2 (.deps/luajit-deb)
#   or-host   tests/hosts/lhost on OpenResty's libluajit-5.1.so.2 (.deps/luajit2)
#   sys-host  lhost on the installed /usr/lib/<arch>/libluajit-5.1.so.2
#             (EXTRA_VARIANTS only: it is whichever build is installed)
#   deb-nogc64-bin, deb-nogc64-host, or-nogc64-bin, or-nogc64-host
#             the same four on non-GC64 builds (LUAJIT_DISABLE_GC64) of the
#             same Debian sources, made by tests/deps/setup-nongc64.sh in
#             .deps/luajit-deb-nogc64 and .deps/luajit2-nogc64
#             (NOGC64_VARIANTS only)
# API:
#   VARIANTS                 the four GC64 labels that exist here, in order
#   NOGC64_VARIANTS          the four non-GC64 labels that exist here
#   EXTRA_VARIANTS           sys-host, when built
#   variant_cmd LABEL SCRIPT [ARGS...]   prints the command line (shell-quoted)
#   variant_exec LABEL SCRIPT [ARGS...]  execs it; `start_bg variant_exec ...`
#                                        leaves the VM's pid in BGPID
#   variant_desc LABEL       one line for logs
#   variant_vmobj LABEL      the ELF file holding the VM (exe or .so)
#   variant_jitdir LABEL     its jit/ directory (vmdef.lua, p.lua, zone.lua)
#   TWOVM_VARIANTS, twovm_cmd/twovm_exec LABEL [SECONDS]: the two-VM host
#                            (tests/hosts/twovm.c) for deb-host/or-host
#   NOGC64_TWOVM_VARIANTS    the same for deb-nogc64-host/or-nogc64-host
#   corohost_cmd/corohost_exec LABEL [-joff] SCRIPT [SECONDS]: the host that
#                            resumes coroutines from C (tests/hosts/corohost.c)
#                            for any *-host label
# Options like -joff or -jp=F go before SCRIPT: hosts accept them too.
# The OpenResty variants get LUA_PATH pointing at their own jit/*.lua,
# since the binaries default to /usr/share/luajit-2.1.0-beta3 (upstream's).

TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
_V_ARCH=$(gcc -dumpmachine 2>/dev/null || echo x86_64-linux-gnu)
_V_HOSTS=$TOP/.output/hosts
_V_SHARE=usr/share/luajit-2.1.0-beta3

# Hosts are built by tests/deps/setup-luajit.sh; rebuild if only they are gone.
if [ -d "$TOP/.deps/luajit2/usr" ] && [ ! -x "$_V_HOSTS/corohost-or" ]; then
	make -s -C "$TOP/tests/hosts" >&2 || true
fi

# Debian's luajit executable, always the extracted copy: the tests never
# depend on an installed /usr/bin/luajit (tests/bin/luajit says why).
_V_DEB_BIN=$TOP/.deps/luajit-deb/usr/bin/luajit
_V_DEB_JIT=$TOP/.deps/luajit-deb/$_V_SHARE/jit

# _variant_tree LABEL: the .deps tree of a label's LuaJIT build.
_variant_tree() {
	case $1 in
	deb-bin | deb-host) echo "$TOP/.deps/luajit-deb" ;;
	or-bin | or-host) echo "$TOP/.deps/luajit2" ;;
	deb-nogc64-*) echo "$TOP/.deps/luajit-deb-nogc64" ;;
	or-nogc64-*) echo "$TOP/.deps/luajit2-nogc64" ;;
	*) return 1 ;;
	esac
}

# _variant_argv LABEL: sets _V_ARGV to the command prefix for LABEL.
_variant_argv() {
	local deb="LUA_PATH=$TOP/.deps/luajit-deb/$_V_SHARE/?.lua;;"
	local or="LUA_PATH=$TOP/.deps/luajit2/$_V_SHARE/?.lua;;"
	local tree
	case $1 in
	*-nogc64-bin | *-nogc64-host)
		tree=$(_variant_tree "$1")
		_V_ARGV=(env "LUA_PATH=$tree/$_V_SHARE/?.lua;;")
		case $1 in
		*-bin) _V_ARGV+=("$tree/usr/bin/luajit") ;;
		*) _V_ARGV+=("$_V_HOSTS/lhost-${1%-host}") ;;
		esac
		return 0 ;;
	deb-bin)  _V_ARGV=(env "$deb" "$_V_DEB_BIN") ;;
	or-bin)   _V_ARGV=(env "$or" "$TOP/.deps/luajit2/usr/bin/luajit") ;;
	deb-host) _V_ARGV=(env "$deb" "$_V_HOSTS/lhost-deb") ;;
	or-host)  _V_ARGV=(env "$or" "$_V_HOSTS/lhost-or") ;;
	sys-host) _V_ARGV=("$_V_HOSTS/lhost-sys") ;;
	*) echo "variants.sh: unknown variant '$1'" >&2; return 1 ;;
	esac
}

variant_cmd() {
	_variant_argv "$1" || return 1
	shift
	local out
	printf -v out '%q ' "${_V_ARGV[@]}" "$@"
	echo "${out% }"
}

variant_exec() {
	_variant_argv "$1" || return 1
	shift
	exec "${_V_ARGV[@]}" "$@"
}

variant_desc() {
	case $1 in
	deb-bin)  echo "Debian upstream LuaJIT 2.1 executable ($_V_DEB_BIN)" ;;
	or-bin)   echo "OpenResty LuaJIT executable (.deps/luajit2)" ;;
	deb-host) echo "C host on Debian upstream libluajit-5.1.so.2 (.deps/luajit-deb)" ;;
	or-host)  echo "C host on OpenResty libluajit-5.1.so.2 (.deps/luajit2)" ;;
	sys-host) echo "C host on the installed /usr/lib/$_V_ARCH/libluajit-5.1.so.2" ;;
	deb-nogc64-bin) echo "Debian upstream LuaJIT 2.1 built non-GC64 (.deps/luajit-deb-nogc64)" ;;
	or-nogc64-bin)  echo "OpenResty LuaJIT built non-GC64 (.deps/luajit2-nogc64)" ;;
	deb-nogc64-host) echo "C host on non-GC64 upstream libluajit-5.1.so.2 (.deps/luajit-deb-nogc64)" ;;
	or-nogc64-host)  echo "C host on non-GC64 OpenResty libluajit-5.1.so.2 (.deps/luajit2-nogc64)" ;;
	*) return 1 ;;
	esac
}

variant_vmobj() {
	case $1 in
	deb-bin)  echo "$_V_DEB_BIN" ;;
	or-bin)   echo "$TOP/.deps/luajit2/usr/bin/luajit" ;;
	deb-host) echo "$TOP/.deps/luajit-deb/usr/lib/$_V_ARCH/libluajit-5.1.so.2.1.0" ;;
	or-host)  echo "$TOP/.deps/luajit2/usr/lib/$_V_ARCH/libluajit-5.1.so.2.1.0" ;;
	sys-host) readlink -f "/usr/lib/$_V_ARCH/libluajit-5.1.so.2" ;;
	*-nogc64-bin) readlink -f "$(_variant_tree "$1")/usr/bin/luajit" ;;
	*-nogc64-host) readlink -f "$(_variant_tree "$1")/usr/lib/$_V_ARCH/libluajit-5.1.so.2" ;;
	*) return 1 ;;
	esac
}

variant_jitdir() {
	case $1 in
	deb-bin)  echo "$_V_DEB_JIT" ;;
	deb-host) echo "$TOP/.deps/luajit-deb/$_V_SHARE/jit" ;;
	or-bin | or-host) echo "$TOP/.deps/luajit2/$_V_SHARE/jit" ;;
	sys-host) echo "/$_V_SHARE/jit" ;;
	*-nogc64-*) echo "$(_variant_tree "$1")/$_V_SHARE/jit" ;;
	*) return 1 ;;
	esac
}

_variant_exists() {
	case $1 in
	*-host) [ -x "$_V_HOSTS/lhost-${1%-host}" ] ;;
	*) _variant_argv "$1" && [ -x "${_V_ARGV[-1]}" ] ;;
	esac
}

VARIANTS=()
for _v in deb-bin or-bin deb-host or-host; do
	_variant_exists "$_v" && VARIANTS+=("$_v")
done
NOGC64_VARIANTS=()
for _v in deb-nogc64-bin or-nogc64-bin deb-nogc64-host or-nogc64-host; do
	_variant_exists "$_v" && NOGC64_VARIANTS+=("$_v")
done
EXTRA_VARIANTS=()
_variant_exists sys-host && EXTRA_VARIANTS+=(sys-host)

TWOVM_VARIANTS=()
for _v in deb-host or-host; do
	[ -x "$_V_HOSTS/twovm-${_v%-host}" ] && TWOVM_VARIANTS+=("$_v")
done
NOGC64_TWOVM_VARIANTS=()
for _v in deb-nogc64-host or-nogc64-host; do
	[ -x "$_V_HOSTS/twovm-${_v%-host}" ] && NOGC64_TWOVM_VARIANTS+=("$_v")
done
unset _v

# _hostbin_argv HOST LABEL: _V_ARGV for another host program on LABEL's build.
_hostbin_argv() {
	case $2 in *-host) ;; *) echo "variants.sh: $1 needs a *-host label" >&2; return 1 ;; esac
	_variant_argv "$2" || return 1
	_V_ARGV[-1]=$_V_HOSTS/$1-${2%-host}
}

# twovm prints "thread N tid TID runs hot_one|hot_two" per thread at start.
_twovm_argv() {
	_hostbin_argv twovm "$1"
}

corohost_cmd() {
	_hostbin_argv corohost "$1" || return 1
	shift
	local out
	printf -v out '%q ' "${_V_ARGV[@]}" "$@"
	echo "${out% }"
}

corohost_exec() {
	_hostbin_argv corohost "$1" || return 1
	shift
	exec "${_V_ARGV[@]}" "$@"
}

twovm_cmd() {
	_twovm_argv "$1" || return 1
	shift
	local out
	printf -v out '%q ' "${_V_ARGV[@]}" "$@"
	echo "${out% }"
}

twovm_exec() {
	_twovm_argv "$1" || return 1
	shift
	exec "${_V_ARGV[@]}" "$@"
}
