#!/bin/bash
# SPDX-License-Identifier: MIT
# Hardening: targets that exit, exec or fork during a run; BPF, BTF and
# tracefs missing; CPUs offline and file descriptors exhausted; stacks
# 10,000 deep; names every format must escape; prototypes freed and
# reused under the symbolizer; maps too small.  Exit statuses and messages
# are the ones docs/hardening.md documents.
source "$(dirname "$0")/lib.sh"
source "$TOP/tests/variants.sh"
CPU1=/sys/devices/system/cpu/cpu1/online
trap 'restore_cpu1; cleanup_children; rm -rf "$TMP"' EXIT

restore_cpu1() {
	[ -n "${CPU1_OFF:-}" ] && echo 1 >"$CPU1" 2>/dev/null
	CPU1_OFF=
}

# prof NAME ARGS...: stdout in $TMP/NAME.out, stderr in $TMP/NAME.err, RC.
prof() {
	LAST=$1; shift
	"$PROF" "$@" >"$TMP/$LAST.out" 2>"$TMP/$LAST.err"
	RC=$?
}

# refused NAME PATTERN: the last run exited 1 with one stderr line matching.
refused() {
	local n; n=$(wc -l <"$TMP/$LAST.err")
	if [ "$RC" -eq 1 ] && [ "$n" -eq 1 ] && grep -Eq "$2" "$TMP/$LAST.err"; then
		pass "$1 (exit 1: $(cat "$TMP/$LAST.err"))"
	else
		fail "$1" "exit $RC, $n line(s): $(tr '\n' '|' <"$TMP/$LAST.err")"
	fi
}

# reported NAME KEY: the last run exited 0, its report holds KEY and stderr
# ends with the summary line.
reported() {
	if [ "$RC" -eq 0 ] && grep -qF -- "$2" "$TMP/$LAST.out" &&
		tail -1 "$TMP/$LAST.err" | grep -q 'samples in'; then
		pass "$1"
	else
		fail "$1" "exit $RC; report: $(head -c 300 "$TMP/$LAST.out" | tr '\n' '|'); stderr: $(tr '\n' '|' <"$TMP/$LAST.err")"
	fi
}

# summary FIELD: a number from the last run's summary line ("truncated"...).
summary() {
	tail -1 "$TMP/$LAST.err" | grep -o "[0-9]* $1" | grep -o '^[0-9]*'
}

SPIN='for i = 1, n do x = (x * 1664525 + 1013904223) % 4294967296 end return x'

# --- a target that exits during the run --------------------------------------------
start_bg "$LUAJIT" "$WL/w631.lua" 3
wait_lua "$BGPID"
start=$SECONDS
prof exit -p "$BGPID" -d 120 --jp F
reported "target exits: its profile is reported (exit 0)" "w631.lua:a"
check "target exits: stderr says it exited" grep -q "PID $BGPID (luajit) exited; reporting what was collected" "$TMP/exit.err"
check "target exits: the run ends with it, not at -d" [ $((SECONDS - start)) -lt 60 ]

# --- a target that execs --------------------------------------------------------------
cat >"$TMP/exec.lua" <<EOF
-- exec.lua SECONDS PATH ARGV0 ARGS...: spins, then execs PATH.
local ffi = require "ffi"
ffi.cdef "int execv(const char *path, char *const argv[]);"
local function before_exec(n, x) $SPIN end
local t0, x = os.clock(), 1
while os.clock() - t0 < tonumber(arg[1]) do x = before_exec(100000, x) end
local argv = ffi.new("char *[?]", #arg - 1)	-- zeroed: NULL-terminated
for i = 3, #arg do argv[i - 3] = ffi.cast("char *", arg[i]) end
ffi.C.execv(arg[2], argv)
EOF
cat >"$TMP/after.lua" <<EOF
local function after_exec(n, x) $SPIN end
local t0, x = os.clock(), 1
while os.clock() - t0 < tonumber(arg[1]) do x = after_exec(100000, x) end
EOF
# Into a program without LuaJIT: what was collected is reported; the run
# ends when the process does.
start_bg "$LUAJIT" "$TMP/exec.lua" 2.5 /bin/sleep sleep 2
wait_lua "$BGPID"
prof exec -p "$BGPID" --jp F
reported "exec into sleep: what was collected is reported (exit 0)" "exec.lua:before_exec"
check "exec into sleep: stderr says so" grep -q "PID $BGPID (luajit) exec'd sleep: its LuaJIT VM is gone" "$TMP/exec.err"
# Into LuaJIT again: the new VM is found and profiled too.
start_bg "$LUAJIT" "$TMP/exec.lua" 2.5 "$(readlink -f "$LUAJIT_EXE")" luajit "$TMP/after.lua" 3
wait_lua "$BGPID"
prof exec2 -p "$BGPID" --jp F
reported "exec into luajit: the old VM's functions" "exec.lua:before_exec"
reported "exec into luajit: the new VM's functions" "after.lua:after_exec"

# --- a target that forks ----------------------------------------------------------------
cat >"$TMP/fork.lua" <<EOF
-- fork.lua SECONDS: forks; the parent runs parent_work, the child
-- child_work (it prints its PID).
local ffi = require "ffi"
ffi.cdef "int fork(void); int getpid(void);"
local function parent_work(n, x) $SPIN end
local function child_work(n, x) $SPIN end
local secs, x, t0 = tonumber(arg[1]), 1, os.clock()
if ffi.C.fork() == 0 then
	io.stdout:write(ffi.C.getpid(), "\n") io.stdout:flush()
	while os.clock() - t0 < secs do x = child_work(100000, x) end
else
	while os.clock() - t0 < secs do x = parent_work(100000, x) end
end
EOF
start_bg "$LUAJIT" "$TMP/fork.lua" 60 >"$TMP/child.pid"
parent=$BGPID
wait_lua "$parent"
for ((i = 0; i < 50; i++)); do [ -s "$TMP/child.pid" ] && break; sleep 0.1; done
child=$(cat "$TMP/child.pid")
prof fork -p "$parent" -d 3 --jp Fm0 --per-process
reported "fork: the parent is profiled" "fork.lua:parent_work"
reported "fork: the child, running the same program with a copy of the VM, is followed" "fork.lua:child_work"
check "fork: stderr names the child it follows" \
	grep -q "PID $parent (luajit) forked PID $child running the same program: profiling it too" "$TMP/fork.err"
check "fork: --per-process: parent and child each get their own section" \
	bash -c "grep -q '^=== PID $parent ' '$TMP/fork.out' && grep -q '^=== PID $child ' '$TMP/fork.out'"
prof forkchild -p "$child" -d 2 --jp Fm0
reported "fork: the child is profiled when given with -p" "fork.lua:child_work"
check "fork: ... and only the child" bash -c "! grep -q parent_work '$TMP/forkchild.out'"
kill "$child" 2>/dev/null

# A steady workload for the environment cases.
start_bg "$LUAJIT" "$WL/w631.lua" 120
W=$BGPID
wait_lua "$W"

# --- BPF, BTF, tracefs ----------------------------------------------------------------------
# BPF missing: bpf() fails with ENOSYS under a seccomp filter, as on a
# kernel without CONFIG_BPF_SYSCALL.
cat >"$TMP/nobpf.c" <<'EOF'
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_bpf, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	if (argc < 2 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		perror("nobpf");
		return 126;
	}
	execvp(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
EOF
if cc -o "$TMP/nobpf" "$TMP/nobpf.c"; then
	"$TMP/nobpf" "$PROF" -p "$W" -d 1 >"$TMP/nobpf.out" 2>"$TMP/nobpf.err"
	RC=$? LAST=nobpf
	refused "BPF unavailable (bpf() ENOSYS)" "BPF is not available"
else
	fail "BPF unavailable" "cannot build the seccomp wrapper"
fi
LUABPFPROF_BTF=/nonexistent/vmlinux prof nobtf -p "$W" -d 1
refused "BTF unavailable (LUABPFPROF_BTF names no file)" "kernel BTF unavailable: LUABPFPROF_BTF=/nonexistent/vmlinux"
LUABPFPROF_BTF=/sys/kernel/btf/vmlinux prof btffile -p "$W" -d 1
reported "LUABPFPROF_BTF=/sys/kernel/btf/vmlinux works" "%  a"
# The kernel's own BTF hidden, as on a kernel without CONFIG_DEBUG_INFO_BTF.
unshare -m sh -c "mount -t tmpfs none /sys/kernel/btf && exec '$PROF' -p $W -d 1" \
	>"$TMP/hidebtf.out" 2>"$TMP/hidebtf.err"
RC=$? LAST=hidebtf
refused "BTF unavailable (/sys/kernel/btf/vmlinux missing)" "kernel BTF unavailable: /sys/kernel/btf/vmlinux is missing"
# tracefs (and debugfs) not mounted: nothing needs them.
unshare -m sh -c "umount -l /sys/kernel/tracing 2>/dev/null; umount -l /sys/kernel/debug 2>/dev/null;
	! grep -qE ' (tracefs|debugfs) ' /proc/self/mounts && exec '$PROF' -p $W -d 1 --jp F" \
	>"$TMP/notracefs.out" 2>"$TMP/notracefs.err"
RC=$? LAST=notracefs
reported "tracefs not mounted: profiling works" "w631.lua:a"

# --- perf_event_open: an offline CPU (ENODEV), too many files (EMFILE) ---------------------
if [ -w "$CPU1" ] && [ "$(cat "$CPU1")" = 1 ]; then
	CPU1_OFF=1
	if echo 0 >"$CPU1"; then
		prof offline -p "$W" -d 1 -v --jp F
		restore_cpu1
		reported "CPU 1 offline: the online CPUs are sampled" "w631.lua:a"
		check "CPU 1 offline: -v says it is skipped" grep -q "CPU 1 is offline: not sampled" "$TMP/offline.err"
	else
		CPU1_OFF=
		fail "CPU 1 offline" "cannot offline cpu1"
	fi
else
	echo "SKIP: CPU 1 offline: no hot-pluggable cpu1 here"
fi
check "CPU 1 is online again" bash -c "[ ! -e '$CPU1' ] || [ \$(cat '$CPU1') = 1 ]"

# Every descriptor limit either works or fails in one line that says so.
ok=0 refusedn=0 bad=
for n in 4 5 6 8 10 12 14 16 18 20 24 32; do
	(ulimit -n "$n"; exec "$PROF" -p "$W" -d 0.3) >"$TMP/emfile.out" 2>"$TMP/emfile.err"
	rc=$?
	if [ $rc -eq 0 ] && grep -q '%  ' "$TMP/emfile.out"; then
		ok=$((ok + 1))
	elif [ $rc -eq 1 ] && [ "$(wc -l <"$TMP/emfile.err")" -eq 1 ] &&
		grep -q "too many open files" "$TMP/emfile.err"; then
		refusedn=$((refusedn + 1))
	else
		bad+="n=$n: exit $rc: $(tr '\n' '|' <"$TMP/emfile.err") "
	fi
done
check "ulimit -n 4..32: each run works or names 'too many open files' ($ok worked, $refusedn refused) $bad" \
	[ -z "$bad" ] && [ $ok -gt 0 ] && [ $refusedn -gt 0 ]

# --- recursion 10,000 deep ----------------------------------------------------------------
start_bg "$LUAJIT" "$WL/deep.lua" 60
D=$BGPID
wait_lua "$D"
sleep 1
prof deep -p "$D" -d 1.5 -f folded
nlines=$(wc -l <"$TMP/deep.out")
check "deep: every stack is cut, with a marker ($nlines stacks)" \
	bash -c "[ $nlines -gt 0 ] && ! grep -qv '^luajit;\[unknown: truncated\];' '$TMP/deep.out'"
# walked N FILE: every folded stack shows N frames walked below the marker.
# A sample in the GC or the JIT compiler has that state as its leaf frame,
# which is not a walked frame. An os.clock leaf (bottom's only C call) shows
# N when the IP is still in the VM's call of the fast function, and N - 1
# when it is in os.clock's C code: the walk spent a slot on the sampled C
# address (bpf/steps.bpf.h, walk_threads). Stacks that break this are printed.
walked() {
	[ -s "$2" ] && awk -F';' -v want="$1" '{
		n = NF - 2
		if ($NF ~ /^\[(Garbage Collector|JIT Compiler)\] /) n--
		ok = n == want || ($NF ~ /^os\.clock / && n == want - 1)
		if (!ok) { bad = 1; print "walked " n " of " want ": " $0 >"/dev/stderr" }
	} END { exit bad }' "$2"
}
check "deep: 256 frames walked below the marker" walked 256 "$TMP/deep.out"
check "deep: the top is spin < bottom < descend" \
	bash -c "grep -q ';deep.lua:descend;deep.lua:bottom;deep.lua:spin [0-9]*\$' '$TMP/deep.out'"
t=$(summary truncated)
samples=$(tail -1 "$TMP/deep.err" | grep -o '^luabpfprof: [0-9]*' | grep -o '[0-9]*$')
check "deep: the truncated samples are counted ($t of $samples)" \
	bash -c "[ -n '$t' ] && [ '$t' -gt 0 ] && [ \$(( $t * 10 )) -ge \$(( $samples * 9 )) ]"
prof deep16 -p "$D" -d 1 -f folded --max-frames 16
check "deep: --max-frames 16 walks 16" walked 16 "$TMP/deep16.out"
kill "$D"

# --- names that need escaping, and 10 KB chunk names --------------------------------------------
cat >"$TMP/names.lua" <<EOF
-- Chunk and field names with ; newline < & and bytes that are not UTF-8,
-- and a chunk name of 10 KB.
local src = "return function(n, x) $SPIN end"
local t = {}
t["a;b\nc<d>&e\255\254f"] = assert(load(src, "@x;y\nz<w>&v\255.lua"))()
t.long = assert(load(src, "@" .. string.rep("L", 10240)))()
local x, t0 = 1, os.clock()
while os.clock() - t0 < tonumber(arg[1]) do
	x = t["a;b\nc<d>&e\255\254f"](100000, x)
	x = t.long(100000, x)
end
EOF
cat >"$TMP/validate.py" <<'EOF'
import json, os, re, sys
sys.path.insert(0, os.environ["TESTS"] + "/corpus")
import gzip, pprof_strings
kind, path = sys.argv[1], sys.argv[2]
weird_chunk = b"x;y\nz<w>&v\xff.lua"
weird_name = b"a;b\nc<d>&e\xff\xfef"
want = weird_chunk + b":" + weird_name          # F key, as stored
long_key = b"L" * 10240 + b":long"
data = open(path, "rb").read()

def unesc(b):
    return re.sub(rb"%([0-9A-F]{2})", lambda m: bytes([int(m.group(1), 16)]), b)

if kind == "folded":
    data.decode("utf-8")
    frames = set()
    for line in data.split(b"\n")[:-1]:
        m = re.fullmatch(rb"(.*) (\d+)", line)
        assert m and not re.search(rb"\s\d+$", m.group(1)), line[:80]
        frames.update(unesc(f) for f in m.group(1).split(b";"))
    assert want in frames, "weird frame not found back"
    assert long_key in frames, "10 KB frame not found back"
elif kind == "speedscope":
    doc = json.loads(data.decode("utf-8"))
    names = [f["name"] for f in doc["shared"]["frames"]]
    w = want.decode("utf-8", "replace")
    assert w in names, "weird frame missing: %r" % names[:5]
    assert long_key.decode() in names
elif kind == "pprof":
    strings = list(pprof_strings.strings(gzip.decompress(data), raw=True))
    for s in strings:
        s.decode("utf-8")
    assert any(b"c<d>&e" in s for s in strings), "weird name missing"
    assert long_key in strings or any(b"L" * 10240 in s for s in strings)
elif kind == "svg":
    assert b"c&lt;d&gt;&amp;e" in data, "escaped name missing"
    data.decode("utf-8")
print("ok")
EOF
start_bg "$LUAJIT" "$TMP/names.lua" 60
N=$BGPID
wait_lua "$N"
for fmt in folded svg speedscope pprof; do
	ext=$fmt; [ $fmt = pprof ] && ext=pb.gz; [ $fmt = speedscope ] && ext=speedscope.json
	prof "names-$fmt" -p "$N" -d 1.5 -o "$TMP/names.$ext"
	out=$(TESTS=$TOP/tests python3 "$TMP/validate.py" "$fmt" "$TMP/names.$ext" 2>&1)
	check "names: $fmt stays valid and keeps every name ($out)" \
		bash -c "[ $RC -eq 0 ] && [ '$out' = ok ]"
done
check "names: the SVG is well-formed XML" xmllint --noout "$TMP/names.svg"
if command -v go >/dev/null; then
	check "names: go tool pprof reads the profile" \
		bash -c "go tool pprof -raw '$TMP/names.pb.gz' >/dev/null 2>&1"
fi
prof names-text -p "$N" -d 1 --jp F
reported "names: the text view prints them" "c<d>&e"
kill "$N"

# --- prototypes freed and reused between sampling and symbolization ---------------------------
# churn_check LABEL COMMAND...: runs churn.lua under COMMAND and profiles it.
# gen<k>.lua's function starts on line A = k % 50 + 1 and runs on lines A and
# A + 2 only (churn.lua); line 0 is a chunk's own header, as jit.p prints
# it.  A frame named from a prototype that took the sampled one's memory
# lands on another line (measured before frames carried a fingerprint:
# 14 to 18 wrong keys in about 100 per run).
churn_check() {
	local label=$1 c bad named nbad unknown; shift
	start_bg "$@" "$WL/churn.lua" 60
	c=$BGPID
	wait_lua "$c"
	prof churn -p "$c" -d 3 -F 999 --jp lm0
	reported "churn ($label): no crash, a report" "%  "
	bad=$(sed -n 's/^ *[0-9]*%  gen\([0-9]*\)\.lua:\([0-9]*\)$/\1 \2/p' "$TMP/churn.out" |
		awk '$2 != 0 && $2 != $1 % 50 + 1 && $2 != $1 % 50 + 3' | tr '\n' ' ')
	named=$(grep -c 'gen[0-9]*\.lua:' "$TMP/churn.out")
	nbad=$(printf '%s' "$bad" | wc -w)
	check "churn ($label): no wrong name: gen<k>.lua keys on lines k%50+1, k%50+3 or 0 ($named named, $((nbad / 2)) wrong${bad:+: $bad})" \
		[ "$nbad" -eq 0 ]
	check "churn ($label): some frames are still named ($named)" [ "$named" -ge 5 ]
	unknown=$(summary "unknown frames")
	check "churn ($label): frames of freed prototypes are counted as unknown ($unknown)" \
		bash -c "! grep -q '\[unknown: \(unresolved\|VM gone\)\]' '$TMP/churn.out' || [ '${unknown:-0}' -gt 0 ]"
	kill -0 "$c" && pass "churn ($label): the target still runs" || fail "churn ($label)" "the target died"
	kill "$c"
}
churn_check "$(basename "$LUAJIT")" "$LUAJIT"
# The fingerprint's other reading (4-byte references, a 12-byte header
# span) and OpenResty's build, when the test set-up made them.
for v in deb-nogc64-bin or-bin; do
	[[ " ${VARIANTS[*]} ${NOGC64_VARIANTS[*]} " == *" $v "* ]] && churn_check "$v" variant_exec "$v"
done

# --- the interpreter sampled between a jump and the fetch at its target ----------------------
# skipped_check LABEL COMMAND...: profiles skipped.lua under COMMAND -joff.
# Its generated function jumps over a never-run line for every line that
# runs (odd lines 3 .. 40001 never run); while PC names the jump's target,
# PC - 4 is the instruction before it, on a never-run line.  Measured
# before the dispatch was recognized: 49 and 162 of about 3,000 samples.
skipped_check() {
	local label=$1 counts; shift
	start_bg "$@" -joff "$WL/skipped.lua" 60 2>"$TMP/skipped.ready"
	wait_lua "$BGPID"
	# The chunk is generated and compiled to bytecode first: a second was
	# not always enough (the non-GC64 build beside another job: 91
	# samples of 3 s in the function, the rest in the compiler).
	wait_for "$TMP/skipped.ready" ready 60 || fail "jump targets ($label): ready" "skipped.lua never said so"
	prof skipped -p "$BGPID" -d 3 -F 999 -f folded --jp l
	counts=$(grep -o 'skipped_gen:[0-9]* [0-9]*$' "$TMP/skipped.out" | sed 's/skipped_gen://' |
		awk '{ if ($1 % 2 == 1 && $1 > 1 && $1 < 40002) bad += $2; else ran += $2 }
		     END { print ran + 0, bad + 0 }')
	# The floor is what makes "none on a never-run line" mean something:
	# before the fix 1.6% of samples (49 of 3,000) landed there, so 300
	# samples leave none with probability 0.984^300 = 0.8%.  3,000 are
	# taken with the target alone; beside another job it gets less CPU.
	check "jump targets ($label): the generated function is sampled (${counts% *})" [ "${counts% *}" -ge 300 ]
	check "jump targets ($label): no sample on a line that never ran (${counts#* })" [ "${counts#* }" -eq 0 ]
	kill "$BGPID"
}
skipped_check "$(basename "$LUAJIT")" "$LUAJIT"
for v in deb-nogc64-bin; do
	[[ " ${NOGC64_VARIANTS[*]} " == *" $v "* ]] && skipped_check "$v" variant_exec "$v"
done

# --- maps too small: drops are counted and reported ------------------------------------------------
start_bg "$LUAJIT" "$WL/cfuncs.lua" 60
M=$BGPID
wait_lua "$M"
prof tiny -p "$M" -d 2 -F 499 --max-stacks 2 --max-counts 2 --jp F
reported "tiny maps: a report, exit 0" "%  "
full=$(( $(summary "stack map full") + $(summary "count map full") ))
check "tiny maps: drops counted in the summary ($full)" [ "$full" -gt 0 ]
kill "$M"

kill -0 "$W" && pass "the steady workload was never disturbed" || fail "steady workload" "gone"
cleanup_children
