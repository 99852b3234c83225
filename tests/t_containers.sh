#!/bin/bash
# SPDX-License-Identifier: MIT
# Containers and pods (issue 28): a LuaJIT process moved into a cgroup laid
# out as each runtime lays it out (made here under /sys/fs/cgroup, removed
# at the end) gets its container ID, and its pod UID under Kubernetes, in
# every sink: pprof labels (-o .pb.gz), OTLP resource attributes (-o .otlp),
# Pyroscope labels and service name (--push, through tests/ingest), Parca
# labels, and --out-dir's file names; a cgroup of no known layout gives no
# label at all.  With a kubelet log link (/var/log/containers, made here when
# the host has none), the pod's and container's names as well.
set -u
. "$(dirname "$0")/lib.sh"
cd "$TOP"

CHECK=$TOP/tests/otlp_check.py
PPROF_PROTO=$(dpkg -L golang-github-google-pprof-dev 2>/dev/null | grep '/proto/profile.proto$' | head -1)
V2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
V1=$(awk '$3 == "cgroup" && $4 ~ /(^|,)pids(,|$)/ { print $2; exit }' /proc/mounts)
CREATED=()		# cgroup directories, parents first
K8S_LOGS=/var/log/containers
DOCKER_LIB=/var/lib/docker
PODMAN_LIB=/var/lib/containers
MADE=()			# runtime directories made here, removed at the end

cleanup() {
	local i
	cleanup_children
	for ((i = ${#CREATED[@]} - 1; i >= 0; i--)); do rmdir "${CREATED[i]}" 2>/dev/null; done
	for ((i = 0; i < ${#MADE[@]}; i++)); do rm -rf "${MADE[i]}"; done
	rm -rf "$TMP"
}
trap cleanup EXIT

[ -n "$V2" ] || { fail "cgroup v2" "no cgroup2 mount"; exit 1; }
[ -n "$PPROF_PROTO" ] || { fail "pprof proto" "golang-github-google-pprof-dev missing"; exit 1; }
build_ingest >"$TMP/build.log" 2>&1 || { fail "ingest server builds" "$(head -c 300 "$TMP/build.log")"; exit 1; }
# --label-from's program, where the product trusts it (not the checkout)
if ! HOOKDIR=$(root_only_dir 2>"$TMP/hookdir.err"); then
	fail "a root-only directory for --label-from's program" "$(cat "$TMP/hookdir.err")"
	exit 1
fi
MADE+=("$HOOKDIR")
install -m 755 tests/bin/label-hook "$HOOKDIR/label-hook"

# mkcg ROOT PATH: creates ROOT/PATH and every missing parent, remembered.
mkcg() {
	local root=$1 path=$2 dir=$1 part
	IFS=/ read -ra parts <<<"$path"
	for part in "${parts[@]}"; do
		dir=$dir/$part
		[ -d "$dir" ] && continue
		mkdir "$dir" || return 1
		CREATED+=("$dir")
	done
}

start_ingest "$TMP/ingest.log" 0 || { fail "ingest server starts" ""; exit 1; }
PORT=$SRV_PORT

hexid() { head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n'; }
uuid() { cat /proc/sys/kernel/random/uuid; }

# layout NAME ROOT PATH WANT_ID WANT_POD [API]: a LuaJIT process in ROOT/PATH,
# profiled into every sink; WANT_ID "" for no container.
layout() {
	local name=$1 root=$2 path=$3 id=$4 pod=$5 api=${6:-ingest} out pid short
	out=$TMP/$(echo "$name" | tr -c 'a-z0-9\n' _)
	mkdir -p "$out/files"
	if [ -n "${FORGER:-}" ]; then	# the user's process, in cgroups the user names
		start_bg setpriv --reuid="$FORGER" --regid="$FORGER" --clear-groups -- \
			"$LUAJIT" "$WL/otlp_mix.lua" 60
		pid=$BGPID
		wait_lua "$pid"
		echo "$pid" >"$root/$DELEG/cgroup.procs" || { fail "$name: delegate" "$DELEG"; return; }
		setpriv --reuid="$FORGER" --regid="$FORGER" --clear-groups -- sh -c \
			"mkdir -p '$root/$path' && echo $pid >'$root/$path/cgroup.procs'" ||
			{ fail "$name: the user's move" "$root/$path"; return; }
		forged_dirs "$root" "$path"
		check "$name: the user's process is in the path it made (its owner: $(stat -c %U "$root/$path"))" \
			grep -q "::/$path\$" "/proc/$pid/cgroup"
	else
		mkcg "$root" "$path" || { fail "$name: cgroup" "cannot create $root/$path"; return; }
		start_bg "$LUAJIT" "$WL/otlp_mix.lua" 60
		pid=$BGPID
		wait_lua "$pid"
		echo "$pid" >"$root/$path/cgroup.procs" || { fail "$name: move" "$root/$path"; return; }
	fi
	"$PROF" -p "$pid" -d 1 -o "$out/p.pb.gz" ${HOOK:+--label-from "$HOOK"} 2>"$out/p.err"
	python3 "$CHECK" labels "$PPROF_PROTO" "$out/p.pb.gz" >"$out/p.labels" 2>&1
	"$PROF" -p "$pid" -d 1 -o "$out/p.otlp" ${HOOK:+--label-from "$HOOK"} 2>"$out/o.err"
	python3 "$CHECK" summary "$OTLP_SCHEMA" "$out/p.otlp" >"$out/o.sum" 2>&1
	"$PROF" --continuous -p "$pid" -F 99 --every 1s -d 3 --service "${TEMPLATE:-{container\}}" \
		--out-dir "$out/files" --push "http://127.0.0.1:$PORT" --push-api "$api" \
		--label "layout=$(echo "$name" | tr -c 'a-z0-9\n' _)" ${HOOK:+--label-from "$HOOK"} \
		2>"$out/a.err"
	grep "layout=$(echo "$name" | tr -c 'a-z0-9\n' _)" "$TMP/ingest.log" >"$out/pushed"
	short=${id:0:12}
	if [ -z "$id" ]; then
		check "$name: no container label in pprof" bash -c "! grep -q 'container\|pod' $out/p.labels && grep -q 'label pid=$pid' $out/p.labels"
		check "$name: no container attribute in OTLP" bash -c "! grep -q 'container\|k8s' $out/o.sum && grep -q 'resource process.pid=$pid' $out/o.sum"
		check "$name: pushed without a container label, named by the comm" \
			bash -c "[ -s $out/pushed ] && ! grep -q 'container\|pod' $out/pushed && grep -q 'service=luajit' $out/pushed"
		check "$name: file names without an ID" bash -c "ls $out/files | grep -q -- '-luajit-$pid.pb.gz\$'"
	else
		check "$name: pprof label container_id" grep -qx "label container_id=$id" "$out/p.labels"
		check "$name: OTLP container.id" grep -qx "resource container.id=$id" "$out/o.sum"
		check "$name: $api push: container_id label" grep -q "container_id=$id" "$out/pushed"
		check "$name: file name carries the short ID" bash -c "ls $out/files | grep -q -- '-$pid-$short.pb.gz\$'"
		[ -n "${TEMPLATE:-}" ] ||	# checked by the caller
		check "$name: --service '{container}' is ${SERVICE:-the short ID}" \
			grep -q "service=${SERVICE:-$short}	" "$out/pushed"
		if [ -z "$pod" ]; then
			check "$name: no pod" bash -c "! grep -q pod $out/p.labels && ! grep -q k8s $out/o.sum"
		else
			check "$name: pprof label pod_uid" grep -qx "label pod_uid=$pod" "$out/p.labels"
			check "$name: OTLP k8s.pod.uid" grep -qx "resource k8s.pod.uid=$pod" "$out/o.sum"
			check "$name: $api push: pod_uid label" grep -q "pod_uid=$pod" "$out/pushed"
		fi
	fi
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
}

ID=$(hexid); layout "docker, systemd driver" "$V2" "system.slice/docker-$ID.scope" "$ID" "" parca
ID=$(hexid); layout "docker, cgroupfs driver" "$V2" "docker/$ID" "$ID" ""
ID=$(hexid); layout "podman, systemd" "$V2" "machine.slice/libpod-$ID.scope/container" "$ID" ""
ID=$(hexid); POD=$(uuid)
layout "kubernetes containerd, systemd" "$V2" \
	"kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod${POD//-/_}.slice/cri-containerd-$ID.scope" \
	"$ID" "$POD"
ID=$(hexid); POD=$(uuid)
layout "kubernetes CRI-O, cgroupfs" "$V2" "kubepods/burstable/pod$POD/crio-$ID" "$ID" "$POD"
ID=$(hexid)
layout "an unknown layout" "$V2" "lbp-test.slice/app-$ID.scope" "" ""
ID=$(hexid)
layout "CRI-O's monitor" "$V2" "machine.slice/crio-conmon-$ID.scope" "" ""
# A forged kubelet cgroup (issue 42): a user whose cgroup was delegated to
# it (as systemd's user@UID.service is) names cgroups as the kubelet does,
# with a real-looking pod UID and container ID, and moves its own LuaJIT
# process there.  The path's directories are the user's, not root's: no
# container, no pod, no name from the kubelet's links for that ID.
FORGE_USER=lbpcg$$
DELEG=lbp-deleg-$$.slice
# forged_dirs ROOT PATH: the user's directories, for the clean-up.
forged_dirs() {
	local dir=$1 part
	IFS=/ read -ra parts <<<"$2"
	for part in "${parts[@]}"; do dir=$dir/$part; [ "$dir" = "$1/$DELEG" ] || CREATED+=("$dir"); done
}
if useradd --system --no-create-home --shell /usr/sbin/nologin "$FORGE_USER" &&
   mkcg "$V2" "$DELEG" && chown "$FORGE_USER" "$V2/$DELEG" "$V2/$DELEG"/cgroup.{procs,threads,subtree_control}; then
	ID=$(hexid); POD=$(uuid)
	FORGER=$FORGE_USER layout "a user's forged kubelet cgroup" "$V2" \
		"$DELEG/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod${POD//-/_}.slice/cri-containerd-$ID.scope" \
		"" ""
else
	fail "a user's forged kubelet cgroup: set-up" "cannot create $FORGE_USER or delegate $V2/$DELEG"
fi
userdel "$FORGE_USER" 2>/dev/null

if [ -n "$V1" ]; then
	ID=$(hexid); layout "cgroup v1 fallback (docker, cgroupfs)" "$V1" "docker/$ID" "$ID" ""
else
	pass "cgroup v1 fallback: no v1 pids hierarchy on this host (unit-tested only)"
fi

# named LAYOUT: the container's name in OTLP, pprof and the service name.
named() {
	local out=$TMP/$(echo "$1" | tr -c 'a-z0-9\n' _) want=$2
	check "$1: OTLP container.name" grep -qx "resource container.name=$want" "$out/o.sum"
	check "$1: pprof label container" grep -qx "label container=$want" "$out/p.labels"
}

# --- names from Docker's and Podman's files (made here when the host has none) ---
if [ -e "$DOCKER_LIB" ]; then
	pass "docker names: $DOCKER_LIB exists on this host; not touched (unit-tested only)"
else
	ID=$(hexid)
	mkdir -p -m 700 "$DOCKER_LIB/containers/$ID" && MADE+=("$DOCKER_LIB")
	chmod 710 "$DOCKER_LIB/containers" "$DOCKER_LIB/containers/$ID"
	printf '{"State":{"Running":true},"Config":{"Labels":{"Name":"/no"}},"Name":"/lua-shop","ID":"%s"}' \
		"$ID" >"$DOCKER_LIB/containers/$ID/config.v2.json"
	chmod 600 "$DOCKER_LIB/containers/$ID/config.v2.json"
	SERVICE=lua-shop layout "docker, named" "$V2" "system.slice/docker-$ID.scope" "$ID" ""
	named "docker, named" lua-shop
fi
if [ -e "$PODMAN_LIB" ]; then
	pass "podman names: $PODMAN_LIB exists on this host; not touched (unit-tested only)"
else
	ID=$(hexid)
	mkdir -p -m 700 "$PODMAN_LIB/storage/overlay-containers" && MADE+=("$PODMAN_LIB")
	printf '[{"id":"%s","names":["other"]},{"id":"%s","names":["lua-worker"],"image":"x"}]' \
		"$(hexid)" "$ID" >"$PODMAN_LIB/storage/overlay-containers/containers.json"
	chmod 600 "$PODMAN_LIB/storage/overlay-containers/containers.json"
	SERVICE=lua-worker layout "podman, named" "$V2" "machine.slice/libpod-$ID.scope" "$ID" ""
	named "podman, named" lua-worker
fi

# --- names from the kubelet's log links ---------------------------------------
if [ -e "$K8S_LOGS" ]; then
	pass "kubelet names: $K8S_LOGS exists on this host; not touched (unit-tested only)"
else
	mkdir -m 755 "$K8S_LOGS" && MADE+=("$K8S_LOGS")
	ID=$(hexid); POD=$(uuid)
	touch "$K8S_LOGS/lua-api-6f7c9_shop_app-$ID.log"
	path="kubepods.slice/kubepods-pod${POD//-/_}.slice/cri-containerd-$ID.scope"
	SERVICE=app layout "kubernetes, named" "$V2" "$path" "$ID" "$POD"
	out=$TMP/kubernetes__named
	check "kubelet names: OTLP k8s.pod.name, k8s.namespace.name, container.name" \
		bash -c "grep -qx 'resource k8s.pod.name=lua-api-6f7c9' $out/o.sum && grep -qx 'resource k8s.namespace.name=shop' $out/o.sum && grep -qx 'resource container.name=app' $out/o.sum"
	check "kubelet names: pprof labels pod, namespace, container" \
		bash -c "grep -qx 'label pod=lua-api-6f7c9' $out/p.labels && grep -qx 'label namespace=shop' $out/p.labels && grep -qx 'label container=app' $out/p.labels"
fi

# --- labels from a program of the user's (--label-from) ------------------------
# tests/bin/label-hook (run from a copy in $HOOKDIR) answers "team=lua-PID",
# "container=hooked-ID6" and a reserved "pid=" that must be skipped.
ID=$(hexid)
HOOK=$HOOKDIR/label-hook SERVICE=hooked-${ID:0:6} \
	layout "docker, --label-from" "$V2" "system.slice/docker-$ID.scope" "$ID" ""
out=$TMP/docker____label_from
hpid=$(sed -n 's/^label pid=//p' "$out/p.labels")
check "--label-from: pprof labels team and the container's name from the program" \
	bash -c "grep -qx 'label team=lua-$hpid' $out/p.labels && grep -qx 'label container=hooked-${ID:0:6}' $out/p.labels"
check "--label-from: OTLP resource attributes" \
	bash -c "grep -qx 'resource team=lua-$hpid' $out/o.sum && grep -qx 'resource container.name=hooked-${ID:0:6}' $out/o.sum && ! grep -q '^label team=' $out/o.sum"
check "--label-from: push labels" grep -q "team=lua-$hpid" "$out/pushed"
check "--label-from: the program ran without capabilities, as nobody, not root" \
	bash -c "grep -qx 'label hookcaps=0000000000000000' $out/p.labels &&
		grep -qx 'label hookuid=$(id -u nobody)' $out/p.labels"
check "--label-from: the reserved key is skipped and said" \
	bash -c "grep -q 'line(s) not key=value' $out/p.err && ! grep -q 'label pid=.*label pid=' $out/p.labels"
ID=$(hexid)
HOOK=$HOOKDIR/label-hook TEMPLATE='t-{label:team}' \
	layout "docker, --service {label:team}" "$V2" "docker/$ID" "$ID" ""
out=$TMP/docker____service__label_team_
hpid=$(sed -n 's/^label pid=//p' "$out/p.labels")
check "--label-from: --service '{label:team}' names the service and the files" \
	bash -c "grep -q 'service=t-lua-$hpid	' $out/pushed && ls $out/files | grep -q -- '-t-lua-$hpid-$hpid-${ID:0:12}.pb.gz\$'"
cp tests/bin/label-hook "$TMP/hook" && chmod 755 "$TMP/hook"
"$PROF" -p 1 -d 1 --label-from "$TMP/hook" >/dev/null 2>"$TMP/hookbad.err"
check "--label-from: a program in a directory others may write is refused at start, in one line" \
	bash -c "[ \$(wc -l <$TMP/hookbad.err) = 1 ] && grep -q 'writable by no one else' $TMP/hookbad.err"
