#!/bin/bash
# SPDX-License-Identifier: MIT
# Bad input: options, targets, privileges and outputs.  Every refusal is one
# line on stderr that names the problem, with exit status 2 for a usage
# error and 1 for everything else; a run that collected data still reports
# it (docs/hardening.md).
source "$(dirname "$0")/lib.sh"
trap 'cleanup_children; cleanup_mounts; rm -rf "$TMP" "$SHARED"' EXIT

MOUNTS=()
cleanup_mounts() {
	local m
	for m in "${MOUNTS[@]}"; do umount "$m" 2>/dev/null; done
	MOUNTS=()
}

# prof NAME ARGS...: runs the profiler; stdout in $TMP/NAME.out, stderr in
# $TMP/NAME.err, status in RC.
prof() {
	LAST=$1; shift
	"$PROF" "$@" >"$TMP/$LAST.out" 2>"$TMP/$LAST.err"
	RC=$?
}

# refused NAME STATUS PATTERN: the last run exited STATUS with exactly one
# line on stderr matching PATTERN (extended regex), and printed nothing.
refused() {
	local name=$1 want=$2 pat=$3 err=$TMP/$LAST.err
	local n; n=$(wc -l <"$err")
	if [ "$RC" -eq "$want" ] && [ "$n" -eq 1 ] && grep -Eq -e "$pat" "$err" &&
		[ ! -s "$TMP/$LAST.out" ]; then
		pass "$name (exit $RC: $(cat "$err"))"
	else
		fail "$name" "exit $RC (want $want), $n stderr line(s): $(tr '\n' '|' <"$err")"
	fi
}

alive() {	# alive NAME PID: the target was not disturbed
	if kill -0 "$2" 2>/dev/null; then pass "$1: target still runs"
	else fail "$1" "target $2 is gone"; fi
}

# --- options: every numeric flag, bad values of every kind ---------------------
# (user/cli/test_options.c checks the parser itself; this is the binary.)
declare -A GOOD=([-p]=1 [-d]=1 [-F]=99 [--tree-depth]=3 [--max-stacks]=64 [--max-counts]=64
	[--max-frames]=16 [--every]=10 [--retain-count]=5 [--retain-size]=1M [--spool-size]=1M)
for flag in -p -d -F --tree-depth --max-stacks --max-counts --max-frames --every \
	--retain-count --retain-size --spool-size; do
	for value in abc -5 0 99999999999999999999999 12x; do
		case $flag in
		-p) args=(-p "$value") ;;
		--every|--retain-*|--spool-size) args=(-a --continuous --out-dir "$TMP" "$flag" "$value") ;;
		*) args=(-p 1 "$flag" "$value") ;;
		esac
		prof opt "${args[@]}"
		refused "option $flag '$value'" 2 "^luabpfprof: invalid"
	done
	case $flag in
	-p) args=(-p) ;;
	*) args=(-p 1 "$flag") ;;
	esac
	prof opt "${args[@]}"
	refused "option $flag without a value" 2 "needs a value"
done
for letter in -Z -q -X; do
	prof opt -p 1 "$letter"
	refused "unknown option $letter" 2 "unknown option '$letter'"
done
prof opt -p 1 --no-such-option
refused "unknown long option" 2 "unknown option '--no-such-option' \\(see -h\\)"
prof opt -p 1 -f bmp
refused "unknown format" 2 "unknown format 'bmp'"
prof opt -p 1 --jp 'f%'
refused "bad --jp mode" 2 "^luabpfprof: "
prof opt -p 1 --tree=bogus
refused "bad --tree value (before any sampling)" 2 "invalid --tree value"
prof opt -d 1
refused "nothing to profile" 2 "nothing to profile"

# --- options: the messages of issue 13 (item 14) --------------------------------
# Each names the real problem and is refused before anything is started.
prof opt -p 1 -d 1e99
refused "-d 1e99: too large, not 'expected seconds > 0'" 2 "invalid -d/--duration '1e99': too large"
prof opt -p 1 --jp --N
refused "--jp --N: looks like an option, not 'unknown letter'" 2 "cannot start with '--'; it looks like an option"
nopid=4194000
while [ -e "/proc/$nopid" ]; do nopid=$((nopid + 1)); done
prof opt -p "$nopid" --every 5
refused "--every without --continuous is refused, not ignored" 2 "--every needs --continuous"
prof opt -a --continuous -d 2 --push 'http://[::1'
refused "--push http://[::1 refused at parse time" 2 "invalid --push URL 'http://\\[::1': the IPv6 address has no closing"
prof opt -a --continuous -d 2 --push 'http://pyroscope:99999/'
refused "--push with a bad port refused at parse time" 2 "invalid --push URL .*port"
prof opt -a --continuous -d 2 --out-dir "$TMP/labels" --label 9x=1
refused "bad --label content refused before BPF is loaded" 2 "invalid --label '9x=1': the name must match"
# Before BPF and before the privilege check: an unprivileged user gets the
# label's message, not "permission denied".
setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
	"$PROF" -a --continuous -d 2 --out-dir /nonexistent --label 'k=a"b' >"$TMP/label2.out" 2>"$TMP/label2.err"
RC=$? LAST=label2
refused "bad --label refused before the privilege check (as nobody)" 2 "invalid --label 'k=a\"b'"

# --- options: what py-spy and perf users expect (issue 13, item 15) ---------------
prof opt --version
check "--version: exit 0, one line on stdout" \
	bash -c "[ $RC -eq 0 ] && grep -Eqx 'luabpfprof [0-9]+\.[0-9]+\.[0-9]+ \(commit ([0-9a-f]{12}(-dirty)?|unknown), libbpf [0-9.]+\)' '$TMP/opt.out' && [ ! -s '$TMP/opt.err' ]"
prof opt -p 1 --evry 5
refused "misspelt --evry: did you mean --every?" 2 "unknown option '--evry' \\(did you mean --every\\?\\)"
prof opt -p 1 --contnuous
refused "misspelt --contnuous: did you mean --continuous?" 2 "did you mean --continuous\\?"
prof opt -p 1 -d 5sec
refused "-d 5sec: the units are named" 2 "500ms, 5s, 2m, 1h"

# --- targets ----------------------------------------------------------------------
pid=4194000
while [ -e "/proc/$pid" ]; do pid=$((pid + 1)); done
prof nopid -p "$pid" -d 1
refused "target: no such process" 1 "PID $pid: no such process"

kthread=
for d in /proc/[0-9]*; do	# the first kernel thread (PF_KTHREAD), kthreadd in a VM
	flags=$(sed 's/.*) //' "$d/stat" 2>/dev/null | awk '{ print $7 }')
	[ -n "$flags" ] && (( flags & 0x200000 )) && { kthread=${d#/proc/}; break; }
done
prof kthread -p "$kthread" -d 1
refused "target: kernel thread" 1 "PID $kthread: is a kernel thread"

start_bg sleep 30
prof notlua -p "$BGPID" -d 1
refused "target: not LuaJIT" 1 "no LuaJIT VM found"
alive "target: not LuaJIT" "$BGPID"

# A zombie: its parent execs sleep and never waits for it.
start_bg sh -c 'true & exec sleep 30'
zparent=$BGPID
zombie=
for ((i = 0; i < 50; i++)); do
	for c in $(cat /proc/"$zparent"/task/*/children 2>/dev/null); do
		[ "$(awk '{print $3}' "/proc/$c/stat" 2>/dev/null)" = Z ] && zombie=$c
	done
	[ -n "$zombie" ] && break
	sleep 0.1
done
if [ -n "$zombie" ]; then
	prof zombie -p "$zombie" -d 1
	refused "target: zombie" 1 "PID $zombie: is a zombie"
else
	fail "target: zombie" "could not make one"
fi

# --- privileges --------------------------------------------------------------------
start_bg "$LUAJIT" "$WL/w631.lua" 60
W=$BGPID
wait_lua "$W" || fail "workload starts" "no luajit in $W"
"$PROF" -p "$W" -d 0.5 >/dev/null 2>"$TMP/warm.err" ||
	fail "sanity: profiling works at all" "$(cat "$TMP/warm.err")"

setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
	"$PROF" -p "$W" -d 1 >"$TMP/nobody.out" 2>"$TMP/nobody.err"
RC=$? LAST=nobody
refused "privileges: not root" 1 "permission denied.*needs root"
setpriv --bounding-set=-bpf,-perfmon,-sys_admin --inh-caps=-all \
	"$PROF" -p "$W" -d 1 >"$TMP/nocap.out" 2>"$TMP/nocap.err"
RC=$? LAST=nocap
refused "privileges: root without CAP_BPF/CAP_PERFMON" 1 "permission denied: running as root without CAP_"
setpriv --bounding-set=-sys_ptrace --inh-caps=-all \
	"$PROF" -p "$W" -d 1 >"$TMP/noptrace.out" 2>"$TMP/noptrace.err"
RC=$? LAST=noptrace
refused "privileges: root without CAP_SYS_PTRACE" 1 "without CAP_SYS_PTRACE"
alive "privileges" "$W"

# --- outputs -------------------------------------------------------------------------
prof nodir -p "$W" -d 1 -o /nonexistent-dir/prof.txt
refused "output: directory does not exist" 1 "cannot write /nonexistent-dir/prof.txt: No such file"
prof isdir -p "$W" -d 1 -o "$TMP"
refused "output: a directory" 1 "cannot write $TMP: is a directory"

mkdir -p "$TMP/ro"
if mount -t tmpfs -o ro,size=64k none "$TMP/ro"; then
	MOUNTS+=("$TMP/ro")
	prof rofs -p "$W" -d 1 -o "$TMP/ro/prof.txt"
	refused "output: read-only file system" 1 "cannot write $TMP/ro/prof.txt: Read-only file system"
else
	fail "output: read-only file system" "cannot mount a tmpfs"
fi

# A full disk: a 48 KiB tmpfs holding an older report; the new SVG does not
# fit.  The old report survives untouched and no temporary file is left.
mkdir -p "$TMP/full"
if mount -t tmpfs -o size=48k none "$TMP/full"; then
	MOUNTS+=("$TMP/full")
	echo "an older report" >"$TMP/full/prof.svg"
	start_bg "$LUAJIT" "$WL/deep.lua" 60
	D=$BGPID
	wait_lua "$D"
	prof full -p "$D" -d 1 -o "$TMP/full/prof.svg"
	refused "output: disk full" 1 "prof.svg.*No space left on device"
	check "output: disk full: the older report is intact" \
		grep -qx "an older report" "$TMP/full/prof.svg"
	check "output: disk full: no temporary file left" \
		bash -c "[ -z \"\$(ls -A '$TMP/full' | grep -v '^prof.svg$')\" ]"
	kill "$D" 2>/dev/null
else
	fail "output: disk full" "cannot mount a tmpfs"
fi

# A symlink placed by another user where the report goes: never followed,
# replaced by the report.
SHARED=$(mktemp -d /tmp/lbp-shared.XXXXXX)
chmod 1777 "$SHARED"
echo precious >"$TMP/victim"
chmod 644 "$TMP/victim"
setpriv --reuid=nobody --regid=nogroup --clear-groups ln -s "$TMP/victim" "$SHARED/report.txt"
prof symlink -p "$W" -d 1 -o "$SHARED/report.txt"
check "output: another user's symlink: exit 0" [ "$RC" -eq 0 ]
check "output: another user's symlink: the target file is untouched" \
	grep -qx precious "$TMP/victim"
check "output: another user's symlink: replaced by a regular file with the report" \
	bash -c "[ -f '$SHARED/report.txt' ] && [ ! -L '$SHARED/report.txt' ] && grep -q '%  ' '$SHARED/report.txt'"
check "output: no temporary file left" \
	bash -c "[ \$(ls -A '$SHARED' | wc -l) -eq 1 ]"

# A device node (like /dev/null) is written in place, not replaced; on a
# tmpfs of its own, since /tmp may be mounted nodev.
mkdir -p "$TMP/dev"
if mount -t tmpfs -o size=64k none "$TMP/dev" && mknod "$TMP/dev/null" c 1 3; then
	MOUNTS+=("$TMP/dev")
	prof device -p "$W" -d 1 -o "$TMP/dev/null"
	check "output: a device is written, not replaced" \
		bash -c "[ $RC -eq 0 ] && [ -c '$TMP/dev/null' ]"
else
	fail "output: a device is written, not replaced" "cannot make a device node"
fi

# A named pipe: the report comes out of it.
mkfifo "$TMP/fifo"
cat "$TMP/fifo" >"$TMP/fifo.txt" &
reader=$!
prof fifo -p "$W" -d 1 -o "$TMP/fifo"
wait "$reader"
check "output: a FIFO carries the report" \
	bash -c "[ $RC -eq 0 ] && [ -p '$TMP/fifo' ] && grep -q '%  a\$' '$TMP/fifo.txt'"

# The reader goes away before the report is written (| true), or after a
# few bytes (| head): exit 0, one line says so, the summary still follows.
"$PROF" -p "$W" -d 1 2>"$TMP/pipe.err" | true
RC=${PIPESTATUS[0]}
check "output: closed pipe: exit 0" [ "$RC" -eq 0 ]
check "output: closed pipe: one line names it, then the summary" \
	bash -c "[ \$(wc -l <'$TMP/pipe.err') -eq 2 ] && grep -q 'closed the output early (broken pipe)' '$TMP/pipe.err' &&
		tail -1 '$TMP/pipe.err' | grep -q 'samples in'"
start_bg "$LUAJIT" "$WL/deep.lua" 60
D=$BGPID
wait_lua "$D"
"$PROF" -p "$D" -d 1 -f svg 2>"$TMP/head.err" | head -c 100 >/dev/null
RC=${PIPESTATUS[0]}
check "output: | head -c 100 on a large SVG: exit 0 with the summary" \
	bash -c "[ $RC -eq 0 ] && tail -1 '$TMP/head.err' | grep -q 'samples in'"
alive "outputs" "$W"

# --- the run itself: issue 13, items 8, 14 and 15 -----------------------------------
# Durations with units: 1500ms is 1.5 s.
prof unit_ms -p "$W" -d 1500ms
check "-d 1500ms: runs 1.5 s (exit $RC: $(tail -1 "$TMP/unit_ms.err"))" \
	bash -c "[ $RC -eq 0 ] && grep -q 'samples in 1\.[5-9] s' '$TMP/unit_ms.err' && grep -q '%  a\$' '$TMP/unit_ms.out'"
prof unit_s -p "$W" -d 1s
check "-d 1s: exit 0 with a report" \
	bash -c "[ $RC -eq 0 ] && grep -q 'samples in 1\.[0-9] s' '$TMP/unit_s.err'"

# -o x.png: one warning that says text is written, and text is written.
prof png -p "$W" -d 1 -o "$TMP/prof.png"
check "-o x.png: a warning names the extension and the format written" \
	bash -c "[ $RC -eq 0 ] && [ \$(grep -c 'warning: -o .*prof.png: no format is known by the extension .\.png.; writing text' '$TMP/png.err') -eq 1 ]"
check "-o x.png: the file holds the text report" grep -q '%  a$' "$TMP/prof.png"
prof svg -p "$W" -d 1 -o "$TMP/prof.svg"
check "-o x.svg: no warning" bash -c "[ $RC -eq 0 ] && ! grep -q warning '$TMP/svg.err'"

# A sampling rate above the kernel's limit: a lowered limit, in a mount
# namespace of this test's own (the host's value is not touched).
echo 50 >"$TMP/max_rate"
unshare -m --propagation private sh -c \
	"mount --bind '$TMP/max_rate' /proc/sys/kernel/perf_event_max_sample_rate && exec '$PROF' -p '$nopid' -F 99 -d 1" \
	>"$TMP/rate.out" 2>"$TMP/rate.err"
check "-F above perf_event_max_sample_rate: a warning names both rates" \
	grep -q "warning: 99 Hz is above the kernel's limit of 50 Hz" "$TMP/rate.err"
"$PROF" -p "$nopid" -F 99 -d 1 >/dev/null 2>"$TMP/rate2.err"
check "-F below the limit: no warning" bash -c "! grep -q 'warning' '$TMP/rate2.err'"

# -p TID: a thread that is not its process's main thread.  The sampler
# filters on the process, so the thread id is resolved to it, with a note;
# before, the run profiled nothing and exited 0.
start_bg "$LUAJIT" -e '
local ffi = require("ffi")
ffi.cdef[[
typedef unsigned long pthread_t;
int pthread_create(pthread_t *t, const void *attr, void *(*start)(void *), void *arg);
unsigned int sleep(unsigned int);
]]
local t = ffi.new("pthread_t[1]")
assert(ffi.C.pthread_create(t, nil, ffi.cast("void *(*)(void *)", ffi.C.sleep),
	ffi.cast("void *", 60)) == 0)' "$WL/w631.lua" 60
T=$BGPID
tid=
for ((i = 0; i < 100; i++)); do
	tid=$(ls "/proc/$T/task" 2>/dev/null | grep -vx "$T" | head -1)
	[ -n "$tid" ] && break
	sleep 0.1
done
if [ -n "$tid" ]; then
	sleep 0.3
	prof tid -p "$tid" -d 1
	check "-p TID: a note names the thread and its process" \
		grep -q "PID $tid is a thread of process $T: profiling process $T" "$TMP/tid.err"
	check "-p TID: the process is profiled (exit $RC, $(grep -c '%' "$TMP/tid.out") report lines)" \
		bash -c "[ $RC -eq 0 ] && grep -q '%  a\$' '$TMP/tid.out' && ! grep -q 'No samples' '$TMP/tid.out'"
else
	fail "-p TID" "the workload started no second thread"
fi

# PID 1 whose maps the kernel refuses although we hold CAP_SYS_PTRACE (a
# security module guards it, as in some sandboxes): the message must not
# claim the capability is missing.  Where PID 1 is readable there is no
# refusal to word, and the run is refused for another reason.
prof pid1 -p 1 -d 1
if grep -q "cannot read its memory maps" "$TMP/pid1.err"; then
	refused "PID 1: maps refused: says it holds CAP_SYS_PTRACE, not that it needs it" 1 \
		"PID 1 .*permission denied although luabpfprof holds CAP_SYS_PTRACE"
else
	check "PID 1: readable here, refused in one line ($(cat "$TMP/pid1.err"))" \
		bash -c "[ $RC -ne 0 ] && [ \$(wc -l <'$TMP/pid1.err') -eq 1 ] && ! grep -q 'needs CAP_SYS_PTRACE' '$TMP/pid1.err'"
fi

cleanup_children
