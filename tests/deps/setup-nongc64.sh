#!/bin/bash
# SPDX-License-Identifier: MIT
# Builds LuaJIT variants Debian does not ship from Debian's own source
# packages:
#   .deps/luajit-deb-nogc64/  luajit  (upstream 2.1, 2022), LUAJIT_DISABLE_GC64
#   .deps/luajit2-nogc64/     luajit2 (OpenResty 2.1-2023), LUAJIT_DISABLE_GC64
#   .deps/luajit-deb-nojit/   luajit, LUAJIT_DISABLE_JIT, static executable
#                             only: a layout not in user/luajit/layout.c (no
#                             jit_State in GG_State), which the profiler must
#                             refuse rather than guess (t_variants.sh)
# The non-GC64 trees look like the extracted binary packages
# (setup-luajit.sh): usr/bin/luajit (static VM), usr/lib/<arch>/
# libluajit-5.1.so.2, headers, usr/share/luajit-2.1.0-beta3/jit/*.lua;
# binaries are stripped like Debian's.  The build follows debian/rules
# (make amalg PREFIX=/usr) plus the XCFLAGS above.
#
# The source comes from `apt-get source` at the version of the binary
# extracted by setup-luajit.sh (else apt's candidate).  When the machine
# has no deb-src entry, a private one is derived from the deb entries that
# serve the binary package and used through apt options only (lists under
# .deps/.apt-src/): the system's apt configuration is never modified.  No
# source is committed or kept after the build.
#
# Idempotent: a tree whose stamp names the same source version and flags
# is left alone (about 50 ms), and one of $LBP_CACHE/nongc64 with that
# stamp is copied (a fresh clone on a machine that built it before).  From scratch: about 5 s of apt, then the
# three builds side by side, about 75 s of CPU in all (2 minutes on two
# busy cores).
set -euo pipefail
cd "$(dirname "$0")/../.."
TOP=$PWD

DEPS=$TOP/.deps
# Builds are kept for the next clone on this machine in a root-only cache
# (its trees are run as root), keyed by the same stamp as .deps/.
CACHE=${LBP_CACHE:-/var/cache/luabpfprof}/nongc64
source "$TOP/tests/kernels/apt.sh"
cache_dir "$CACHE"
ARCH=$(gcc -dumpmachine)
STAMP_REV=2			# bump when the build recipe changes
APTSRC=$DEPS/.apt-src		# private deb-src lists, when needed
work=				# build dir, removed on any exit
trap '[ -z "$work" ] || rm -rf "$work"' EXIT

log() { echo "setup-nongc64: $*"; }

# src_version BINPKG: "SRCPKG VERSION" of the candidate binary package.
src_version() {
	apt-cache show --no-all-versions "$1" 2>/dev/null | awk '
		/^Version:/ { v = $2 }
		/^Source:/ { s = $2; if ($3 ~ /^\(/) { sv = $3; gsub(/[()]/, "", sv) } }
		END { if (v == "") exit 1; if (s == "") s = "'"$1"'"; print s, (sv != "" ? sv : v) }'
}

# private_sources BINPKG: deb-src entries (one-line format) for every
# archive that serves BINPKG's candidate, with the deb entry's options.
private_sources() {
	local uris
	uris=$(apt-cache policy "$1" | awk '/^ +[0-9]+ (https?|file):/ { print $2 }' | sort -u)
	[ -n "$uris" ] || return 1
	{
		# deb822 stanzas
		for f in /etc/apt/sources.list.d/*.sources; do
			[ -f "$f" ] || continue
			awk -v want="$uris" '
				BEGIN { RS = ""; n = split(want, w, "\n"); for (i = 1; i <= n; i++) ok[w[i]] = 1 }
				{
					types = uris = suites = comps = signed = ""; enabled = 1
					m = split($0, line, "\n")
					for (i = 1; i <= m; i++) {
						k = line[i]; sub(/:.*/, "", k); v = line[i]; sub(/^[^:]*: */, "", v)
						if (k == "Types") types = v
						else if (k == "URIs") uris = v
						else if (k == "Suites") suites = v
						else if (k == "Components") comps = v
						else if (k == "Signed-By") signed = v
						else if (k == "Enabled" && v == "no") enabled = 0
					}
					if (!enabled || types !~ /(^| )deb( |$)/) next
					nu = split(uris, u, " "); ns = split(suites, s, " ")
					opt = signed != "" ? "[signed-by=" signed "] " : ""
					for (i = 1; i <= nu; i++) {
						x = u[i]; sub(/\/$/, "", x)
						if (!(x in ok) && !((x "/") in ok)) continue
						for (j = 1; j <= ns; j++) print "deb-src " opt u[i] " " s[j] " " comps
					}
				}' "$f"
		done
		# one-line format
		{ cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null || true; } |
			awk -v want="$uris" '
				BEGIN { n = split(want, w, "\n"); for (i = 1; i <= n; i++) ok[w[i]] = 1 }
				$1 == "deb" {
					line = $0; sub(/^deb[ \t]+/, "", line); opt = ""
					if (line ~ /^\[/) { opt = line; sub(/\].*/, "] ", opt); sub(/^[^]]*\][ \t]*/, "", line) }
					split(line, f, /[ \t]+/); x = f[1]; sub(/\/$/, "", x)
					if ((x in ok) || ((x "/") in ok)) print "deb-src " opt line
				}'
	} | sort -u
}

# fetch_source SRCPKG VERSION DIR: the unpacked, patched source in DIR.
fetch_source() {
	local pkg=$1 ver=$2 dir=$3 dl
	dl=$(dirname "$dir")/dl
	local apt=(apt-get -qq -o APT::Sandbox::User=root)
	mkdir -p "$dl"
	if ! (cd "$dl" && "${apt[@]}" source --download-only "$pkg=$ver") >/dev/null 2>&1; then
		log "no deb-src entry for $pkg: using a private one in $APTSRC"
		mkdir -p "$APTSRC/lists/partial"
		private_sources "$pkg" > "$APTSRC/sources.list"
		[ -s "$APTSRC/sources.list" ] || { log "cannot derive a deb-src entry for $pkg" >&2; return 1; }
		apt+=(-o Dir::Etc::SourceList="$APTSRC/sources.list"
		      -o Dir::Etc::SourceParts=/nonexistent
		      -o Dir::State::Lists="$APTSRC/lists"
		      -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=)
		if ! (cd "$dl" && "${apt[@]}" source --download-only "$pkg=$ver") >/dev/null 2>&1; then
			"${apt[@]}" update
			(cd "$dl" && "${apt[@]}" source --download-only "$pkg=$ver") >/dev/null
		fi
	fi
	dpkg-source --no-check -x "$dl"/"${pkg}"_*.dsc "$dir" >/dev/null
}

# version_of BINPKG TREE: "SRCPKG VERSION" to build: the version of the
# GC64 binary extracted next to it by setup-luajit.sh (the same source as
# the binaries the tests compare against), else apt's candidate.
version_of() {
	local deb
	deb=$(grep -m1 "^$1_.*\.deb\$" "$DEPS/$2/.stamp" 2>/dev/null) || { src_version "$1"; return; }
	deb=${deb#"$1"_}; deb=${deb%_*.deb}
	echo "$1 ${deb//%3a/:}"
}

# compile TREE SRCDIR WORKDIR FLAGS MODE: builds (BUILDMODE=MODE, mixed or
# static) and installs into WORKDIR/root.
compile() {
	local tree=$1 src=$2 w=$3 flags=$4 mode=$5 exe
	make -C "$src" -j"$(nproc)" amalg PREFIX=/usr BUILDMODE="$mode" XCFLAGS="$flags" \
		>"$w/build.log" 2>&1 &&
	make -C "$src" install DESTDIR="$w/root" PREFIX=/usr MULTILIB="lib/$ARCH" \
		>>"$w/build.log" 2>&1 ||
		{ tail -n 30 "$w/build.log" >&2; log "$tree: build failed" >&2; return 1; }
	# Upstream's beta installs only luajit-2.1.0-beta3; Debian ships usr/bin/luajit.
	exe=$(find "$w/root/usr/bin" -name 'luajit-*' -type f | head -n1)
	[ -e "$w/root/usr/bin/luajit" ] || ln -s "$(basename "$exe")" "$w/root/usr/bin/luajit"
	strip "$exe"
	[ "$mode" = static ] || strip "$w/root/usr/lib/$ARCH"/libluajit-5.1.so.2.*.*
	rm -f "$w/root/usr/lib/$ARCH"/libluajit-5.1.a
	case $flags in
	*DISABLE_GC64*)
		# A non-GC64 VM keeps every GC object below 4 GiB (32-bit GCRefs).
		"$w/root/usr/bin/luajit" -e '
			local a = tonumber(tostring({}):match("0x(%x+)"), 16)
			assert(jit.status() and a < 2^32, "GC object above 4 GiB: GC64 build")' ;;
	*DISABLE_JIT*)
		"$w/root/usr/bin/luajit" -e 'assert(not jit.status(), "JIT present")' ;;
	esac || { log "$tree: the built luajit does not run or is not $flags" >&2; return 1; }
}

# BUILDS: binary package (names the source), its GC64 tree from
# setup-luajit.sh (names the version), tree to build, XCFLAGS, BUILDMODE.
BUILDS=(
	"luajit  luajit-deb luajit-deb-nogc64 -DLUAJIT_DISABLE_GC64 mixed"
	"luajit2 luajit2    luajit2-nogc64    -DLUAJIT_DISABLE_GC64 mixed"
	"luajit  luajit-deb luajit-deb-nojit  -DLUAJIT_DISABLE_JIT  static"
)

# keep TREE STAMP: .deps/TREE into the cache, unless it holds that stamp.
keep() {
	[ -f "$CACHE/$1/.stamp" ] && [ "$(head -n1 "$CACHE/$1/.stamp")" = "$2" ] && return 0
	rm -rf "${CACHE:?}/$1.new"
	cp -a "$DEPS/$1" "$CACHE/$1.new" && rm -rf "${CACHE:?}/$1" && mv "$CACHE/$1.new" "$CACHE/$1"
}

mkdir -p "$DEPS"
work=$(mktemp -d "$DEPS/.build.XXXXXX")
t0=$(date +%s)
todo=()
for b in "${BUILDS[@]}"; do
	read -r bin gc64 tree flags mode <<< "$b"
	sv=$(version_of "$bin" "$gc64") || { log "apt knows no package $bin" >&2; exit 1; }
	stamp="$sv $flags $mode rev$STAMP_REV"
	if [ -f "$DEPS/$tree/.stamp" ] && [ "$(head -n1 "$DEPS/$tree/.stamp")" = "$stamp" ] &&
	   [ -x "$DEPS/$tree/usr/bin/luajit" ]; then
		keep "$tree" "$stamp"
		continue
	fi
	# A fresh clone on a machine that built it before copies it.
	if [ -f "$CACHE/$tree/.stamp" ] && [ "$(head -n1 "$CACHE/$tree/.stamp")" = "$stamp" ] &&
	   [ -x "$CACHE/$tree/usr/bin/luajit" ]; then
		rm -rf "${DEPS:?}/$tree"
		cp -a "$CACHE/$tree" "$DEPS/$tree"
		log "copied $tree from $CACHE"
		continue
	fi
	# One download and unpack per source version, one copy per build.
	srcdir=$work/src-${sv//[^A-Za-z0-9._-]/_}
	# shellcheck disable=SC2086
	[ -d "$srcdir" ] || fetch_source $sv "$srcdir"
	mkdir "$work/$tree"
	cp -a "$srcdir" "$work/$tree/src"
	echo "$stamp" > "$work/$tree/stamp"
	echo "$flags $mode" > "$work/$tree/how"
	todo+=("$tree")
done

# The amalgamated builds are mostly one long compile each: run them side by
# side.
pids=()
for tree in "${todo[@]}"; do
	log "building $tree: $(cat "$work/$tree/stamp")"
	# shellcheck disable=SC2046
	compile "$tree" "$work/$tree/src" "$work/$tree" $(cat "$work/$tree/how") &
	pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done
for tree in "${todo[@]}"; do
	cp "$work/$tree/stamp" "$work/$tree/root/.stamp"
	echo "built in $(( $(date +%s) - t0 )) s" >> "$work/$tree/root/.stamp"
	rm -rf "${DEPS:?}/$tree"
	mv "$work/$tree/root" "$DEPS/$tree"
	log "built $tree in $(( $(date +%s) - t0 )) s"
	keep "$tree" "$(cat "$work/$tree/stamp")"
done
rm -rf "$work"; work=

make -s -C tests/hosts
