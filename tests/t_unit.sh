#!/bin/bash
# SPDX-License-Identifier: MIT
# The systemd unit (contrib/luabpfprof.service) grants what the agent needs
# and nothing more:
#  - its capability bounding set is exactly CAP_BPF, CAP_PERFMON,
#    CAP_SYS_PTRACE and CAP_CHECKPOINT_RESTORE (not CAP_SYS_ADMIN,
#    CAP_DAC_READ_SEARCH, CAP_SYS_RESOURCE, which it held before);
#  - its sandboxing directives are there, and `systemd-analyze security`
#    scores it at most 4.0 (it scored 6.5);
#  - the agent of its ExecStart (-a --continuous) profiles a LuaJIT process
#    with only that bounding set, no_new_privs and its umask: the
#    capabilities are enough.  systemd need not run: the unit is scored
#    offline and its capabilities applied with setpriv.
source "$(dirname "$0")/lib.sh"

UNIT=$TOP/contrib/luabpfprof.service

# directive NAME: the unit's value of NAME (the last one given).
directive() { sed -n "s/^$1=//p" "$UNIT" | tail -1; }

caps=$(directive CapabilityBoundingSet)
want="CAP_BPF CAP_CHECKPOINT_RESTORE CAP_PERFMON CAP_SYS_PTRACE"
got=$(tr ' ' '\n' <<<"$caps" | sort | tr '\n' ' ' | sed 's/ $//')
check "unit: the bounding set is exactly the four the agent needs ($got)" [ "$got" = "$want" ]
check "unit: every capability in the set is documented in the unit" \
	bash -c "for c in $caps; do grep -q \"^#   \$c \" '$UNIT' || exit 1; done"
check "unit: no ambient capabilities" [ -z "$(directive AmbientCapabilities)" ]

# The directives systemd-analyze weighs most, each with its value.
for d in NoNewPrivileges=yes ProtectSystem=strict PrivateTmp=yes PrivateDevices=yes \
	ProtectKernelModules=yes ProtectKernelTunables=yes ProtectKernelLogs=yes \
	ProtectControlGroups=yes ProtectClock=yes RestrictNamespaces=yes RestrictSUIDSGID=yes \
	MemoryDenyWriteExecute=yes SystemCallArchitectures=native UMask=0077; do
	check "unit: $d" [ "$(directive "${d%%=*}")" = "${d#*=}" ]
done
check "unit: a system call deny list that keeps bpf, perf_event_open and setuid" \
	bash -c "v=\$(sed -n 's/^SystemCallFilter=//p' '$UNIT'); [ \"\${v#\~}\" != \"\$v\" ] &&
		! grep -qw 'privileged\|debug\|setuid' <<<\"\$v\""

if systemd-analyze security --offline=yes "$UNIT" >"$TMP/sec" 2>&1; then
	score=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p' "$TMP/sec")
	check "unit: systemd-analyze security scores it at most 4.0 ($score)" \
		awk -v s="$score" 'BEGIN { exit !(s != "" && s <= 4.0) }'
else
	echo "SKIP: unit: systemd-analyze security --offline: $(head -1 "$TMP/sec")"
fi

# The agent with only the unit's capabilities.  setpriv takes names without
# CAP_, in lower case.
bset=-all
for c in $caps; do bset+=",+$(tr '[:upper:]' '[:lower:]' <<<"${c#CAP_}")"; done
start_bg "$LUAJIT" "$WL/w631.lua" 600
W=$BGPID
wait_lua "$W"
mkdir -m 700 "$TMP/out"
( umask 077; timeout 60 setpriv --bounding-set="$bset" --inh-caps=-all --no-new-privs -- \
	"$PROF" -a --continuous --every 1s -F 99 -d 6 --out-dir "$TMP/out" ) 2>"$TMP/agent.err"
rc=$?
check "unit's capabilities: the agent runs and exits 0 (exit $rc: $(tail -1 "$TMP/agent.err"))" [ "$rc" -eq 0 ]
build_ingest >"$TMP/build.log" 2>&1 || fail "ingest server builds" "$(tail -3 "$TMP/build.log")"
"$INGEST" -check "$TMP"/out/*.pb.gz >"$TMP/check" 2>&1
n=$(grep $'^ok\t' "$TMP/check" | grep -c "pids=\([0-9,]*,\)\?$W\(,\|	\)")
check "unit's capabilities: -a found and profiled the LuaJIT process ($n profiles of PID $W)" [ "$n" -ge 2 ]
cleanup_children
rm -rf "$TMP"
