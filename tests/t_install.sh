#!/bin/bash
# SPDX-License-Identifier: MIT
# Installed like a system tool (issue 29): make install/uninstall with
# DESTDIR and PREFIX, the installed binary profiling a real LuaJIT process
# with the build tree hidden, the generated man page against -h and two
# linters, the generated bash and zsh completions driven for real, and the
# Debian package built from a fresh clone of the committed branch.
source "$(dirname "$0")/lib.sh"

DEST=$TMP/dest
VERSION=$(cat "$TOP/VERSION")
COMMIT=$(git -C "$TOP" rev-parse --short=12 HEAD)

# --- make install ------------------------------------------------------------
make -s -C "$TOP" install DESTDIR="$DEST" PREFIX=/usr >"$TMP/install.log" 2>&1
check "make install DESTDIR PREFIX=/usr succeeds" [ $? -eq 0 ]
want=$(cd "$TOP" && {
	printf '%s\n' usr/bin/luabpfprof usr/share/man/man1/luabpfprof.1 \
		usr/share/bash-completion/completions/luabpfprof \
		usr/share/zsh/site-functions/_luabpfprof usr/lib/systemd/system/luabpfprof.service \
		usr/share/doc/luabpfprof/README.md
	ls docs/*.md docs/*.svg | sed 's|^|usr/share/doc/luabpfprof/|'
} | sort)
got=$(cd "$DEST" && find . -type f | sed 's|^\./||' | sort)
if [ "$got" = "$want" ]; then pass "installed files: exactly the $(wc -l <<<"$got") expected"
else fail "installed files" "diff: $(diff <(echo "$want") <(echo "$got") | grep '^[<>]' | tr '\n' ' ')"; fi
check "binary is executable, the rest 0644" \
	bash -c "[ \"\$(stat -c %a '$DEST/usr/bin/luabpfprof')\" = 755 ] &&
		! find '$DEST' -type f ! -path '*/bin/*' ! -perm 644 | grep -q ."
check "unit runs the installed binary" \
	grep -q '^ExecStart=/usr/bin/luabpfprof -a --continuous' "$DEST/usr/lib/systemd/system/luabpfprof.service"

# The installed binary, with the build tree hidden under an empty tmpfs
# (a private mount namespace): it must need nothing from it.
PROG=$DEST/usr/bin/luabpfprof
hidden() { unshare -m sh -c 'mount -t tmpfs none "$1" && cd / && shift && exec "$@"' sh "$TOP" "$@"; }
hidden "$PROG" --version >"$TMP/version.out" 2>&1
check "--version: $VERSION and commit $COMMIT" \
	grep -Eqx "luabpfprof $VERSION \(commit $COMMIT(-dirty)?, libbpf [0-9]+\.[0-9]+\)" "$TMP/version.out"
hidden test -e "$TOP/Makefile"
check "the build tree is hidden from the installed binary" [ $? -ne 0 ]
start_bg "$LUAJIT" "$WL/w631.lua" 60
wait_lua "$BGPID"
hidden "$PROG" -p "$BGPID" -d 2.5 -F 499 --jp F >"$TMP/w631.txt" 2>"$TMP/w631.err"
check "installed binary profiles a LuaJIT process (exit 0)" [ $? -eq 0 ]
check_share "installed binary: top function 6:3:1 (F)" "$TMP/w631.txt" w631.lua:a 60 5

# --- man page ----------------------------------------------------------------
MAN=$DEST/usr/share/man/man1/luabpfprof.1
# Option names as -h lists them and as the rendered page lists them.
"$PROG" -h | grep -oE '^  (-[a-zA-Z], |    )--[a-z-]+' | grep -oE -- '-[a-zA-Z-][a-z-]*' | sort >"$TMP/h.opts"
groff -man -Tascii -P-cbou "$MAN" 2>/dev/null | grep -oE '^       (-[a-zA-Z], )?--[a-z-]+( |\[|$)' |
	grep -oE -- '-[a-zA-Z-][a-z-]*' | sort >"$TMP/man.opts"
if [ "$(wc -l <"$TMP/h.opts")" -gt 40 ] && cmp -s "$TMP/h.opts" "$TMP/man.opts"; then
	pass "man page lists every option of -h ($(wc -l <"$TMP/h.opts") names)"
else
	fail "man page options" "-h vs man: $(diff "$TMP/h.opts" "$TMP/man.opts" | grep '^[<>]' | tr '\n' ' ')"
fi
lint=$(mandoc -T lint "$MAN" 2>&1; echo "rc=$?")
check "mandoc -T lint: no message" [ "$lint" = "rc=0" ]
lint=$(groff -ww -z -man "$MAN" 2>&1; echo "rc=$?")
check "groff -ww: no warning" [ "$lint" = "rc=0" ]
rendered=$(groff -man -Tascii -P-cbou "$MAN" 2>/dev/null)
missing=
for sec in OPTIONS EVENTS FORMATS "CONTINUOUS MODE" FILES "EXIT STATUS" REQUIREMENTS EXAMPLES; do
	grep -qx "$sec" <<<"$rendered" || missing+="$sec; "
done
check "man page has its sections" [ -z "$missing" ]
events=$(sed -n '/^EVENTS/,/^FORMATS/p' <<<"$rendered" | grep -oE '^ {7}[a-z][a-z,-]*( {2,}|$)' |
	tr -d ' ' | tr '\n' ' ')
check "EVENTS describes every -e value ($events)" [ "$events" = "cpu off-cpu wall alloc cpu,off-cpu " ]

# --- bash completion -----------------------------------------------------------
# complete LINE...: COMPREPLY of the installed script for the words given,
# the last one being completed, in a bash that read no startup file.
complete_bash() {
	bash --norc --noprofile -c 'source "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _luabpfprof
		printf "%s\n" "${COMPREPLY[@]}"' sh \
		"$DEST/usr/share/bash-completion/completions/luabpfprof" luabpfprof "$@" | sort | tr '\n' ' '
}
got=$(complete_bash -e "")
check "bash: -e <TAB> ($got)" [ "$got" = "alloc cpu cpu,off-cpu off-cpu wall " ]
got=$(complete_bash --jp "")
check "bash: --jp <TAB> ($got)" [ "$got" = "A F G a f l p r s v z " ]
got=$(complete_bash --jp F)
check "bash: --jp F<TAB> adds a letter ($got)" [ "$got" = "FA FG Fa Ff Fl Fp Fr Fs Fv Fz " ]
got=$(complete_bash --push-api = "")
check "bash: --push-api=<TAB> ($got)" [ "$got" = "ingest otlp parca push " ]
got=$(complete_bash -f sp)
check "bash: -f sp<TAB> ($got)" [ "$got" = "speedscope speedscope-evented " ]
got=$(complete_bash --ret)
check "bash: --ret<TAB> ($got)" [ "$got" = "--retain-count --retain-size " ]
got=$(complete_bash "")
check "bash: <TAB> offers the command words dump and top" bash -c "grep -qw dump <<<'$got' && grep -qw top <<<'$got'"
got=$(complete_bash -p 1 "")
check "bash: the command words only come first ($got)" bash -c "! grep -qwE 'dump|top' <<<'$got'"
got=$(complete_bash -p "")
check "bash: -p <TAB> offers the LuaJIT process $BGPID" grep -qw "$BGPID" <<<"$got"
check "bash: -p <TAB> offers no non-LuaJIT process ($$)" bash -c "! grep -qw $$ <<<'$got'"
got=$(complete_bash -p "1,")
check "bash: -p 1,<TAB> keeps the list" grep -qw "1,$BGPID" <<<"$got"

# --- zsh completion ------------------------------------------------------------
# An interactive zsh in a pseudo-terminal (zpty) with compinit and the
# installed function; a TAB lists the candidates, read back from the screen.
complete_zsh() {
	ZDIR="$DEST/usr/share/zsh/site-functions" LINE="$1" timeout 20 zsh -f -c '
		zmodload zsh/zpty
		zpty z zsh -f -i
		zpty -w z "PS1=\"%% \"; fpath=($ZDIR \$fpath); autoload -Uz compinit; compinit -u -D; luabpfprof() { :; }"
		sleep 1
		while zpty -rt z chunk 2>/dev/null; do :; done
		zpty -wn z "$LINE"$'"'"'\t'"'"'
		sleep 2
		out=
		while zpty -rt z chunk 2>/dev/null; do out+=$chunk; done
		zpty -d z
		print -r -- "$out"' | tr -d '\r' | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g'
}
if command -v zsh >/dev/null; then
	out=$(complete_zsh "luabpfprof -e ")
	# Each line up to a prompt redrawn after it, in words.
	words=$(sed 's/luabpfprof.*//' <<<"$out" | tr -s ' ' '\n' | grep -xE 'cpu|off-cpu|wall|alloc|cpu,off-cpu' | sort -u | wc -l)
	check "zsh: -e <TAB> lists the 5 events" [ "$words" -eq 5 ]
	out=$(complete_zsh "luabpfprof --jp F")
	# The listing's line, up to the prompt redrawn after it.
	list=$(grep -E '^[A-Za-z]  ' <<<"$out" | sed 's/luabpfprof.*//' | tr -s ' ' '\n' | sort | tr '\n' ' ')
	check "zsh: --jp F<TAB> lists the letters but F ($list)" [ "$list" = "A G a f l p r s v z " ]
	# dum<TAB>: the word dump among the commands (dumpe2fs...) _normal offers.
	out=$(complete_zsh "luabpfprof dum")
	check "zsh: dum<TAB> offers the command word dump" grep -qw "dump" <<<"$out"
else
	fail "zsh completion" "zsh is not installed (tests/deps/apt.install)"
fi

# --- make uninstall ------------------------------------------------------------
make -s -C "$TOP" uninstall DESTDIR="$DEST" PREFIX=/usr >"$TMP/uninstall.log" 2>&1
left=$(find "$DEST" -type f | wc -l)
check "make uninstall leaves no file ($left)" [ "$left" -eq 0 ]
check "make uninstall removes the doc directory" [ ! -e "$DEST/usr/share/doc/luabpfprof" ]

# --- Debian package, from a fresh clone of the committed branch -----------------
SRC=$TMP/deb/luabpfprof
git clone -q "$TOP" "$SRC" 2>"$TMP/clone.err"
(cd "$SRC" && timeout 600 dpkg-buildpackage -b -us -uc -j2) >"$TMP/deb.log" 2>&1
check "dpkg-buildpackage -b succeeds in a fresh clone" [ $? -eq 0 ]
DEB=$TMP/deb/luabpfprof_${VERSION}_amd64.deb
check "built luabpfprof_${VERSION}_amd64.deb" [ -s "$DEB" ]
lintian --fail-on error "$TMP/deb/luabpfprof_${VERSION}_amd64.changes" >"$TMP/lintian.out" 2>&1
rc=$? warnings=$(grep -c '^W:' "$TMP/lintian.out")
check "lintian --fail-on error: none ($warnings warnings)" [ $rc -eq 0 ]
contents=$(dpkg-deb -c "$DEB" | awk '{print $6}')
for f in ./usr/bin/luabpfprof ./usr/share/man/man1/luabpfprof.1.gz \
	./usr/share/bash-completion/completions/luabpfprof \
	./usr/share/zsh/vendor-completions/_luabpfprof ./lib/systemd/system/luabpfprof.service \
	./usr/share/doc/luabpfprof/copyright ./usr/share/doc/luabpfprof/README.md.gz; do
	grep -qx -- "$f" <<<"$contents" || fail "package contents" "no $f"
done
pass "package contents: binary, man page, completions, unit, docs"
check "package: nothing from the build tree" bash -c "! grep -E '\\.output|/tests/|\\.o\$' <<<'$contents'"
deps=$(dpkg-deb -f "$DEB" Depends)
check "package depends (computed): libbpf1, libelf1, libdw1, libcurl4, zlib1g, libncursesw6" \
	bash -c "for p in libbpf1 libelf1 libdw1 libcurl4 zlib1g libncursesw6 libc6; do grep -qw \$p <<<'$deps' || exit 1; done"
dpkg -x "$DEB" "$TMP/deb/root"
"$TMP/deb/root/usr/bin/luabpfprof" --version >"$TMP/deb.version" 2>&1
check "the packaged binary runs: $(cat "$TMP/deb.version")" \
	grep -Eqx "luabpfprof $VERSION \(commit $COMMIT, libbpf [0-9]+\.[0-9]+\)" "$TMP/deb.version"
# dh_installsystemd's enabling and starting snippets are absent (--no-enable --no-start).
dpkg-deb -I "$DEB" postinst >"$TMP/postinst" 2>&1
check "the packaged unit is neither enabled nor started at install" \
	bash -c "grep -q luabpfprof.service '$TMP/postinst' &&
		! grep -qE 'was-enabled defaults to true|deb-systemd-invoke' '$TMP/postinst'"
