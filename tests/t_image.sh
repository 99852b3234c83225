#!/bin/bash
# SPDX-License-Identifier: MIT
# The node agent as users deploy it (issue 28): `make bundle` runs where
# none of its libraries are (an empty chroot, and relocated through its own
# loader); contrib/Containerfile builds FROM scratch with podman, here, with
# no registry; the image, run with only contrib/luabpfprof-daemonset.yaml's
# privileges (the capabilities it lists, the host's PID namespace, seccomp
# unconfined, a read-only root), profiles LuaJIT processes outside it: a
# host process (w631's 6:3:1 split within 3 points, its pid and the host's
# name, no container label) and one in another podman container (its
# container ID from the cgroup podman made).  The DaemonSet passes
# tests/k8s_check.py.  podman keeps its images under $TMP (--root), so
# nothing is left in /var/lib/containers.
set -u
. "$(dirname "$0")/lib.sh"
cd "$TOP"

IMAGE=localhost/luabpfprof:t_image
WIMAGE=localhost/lbp-workload:t_image
CAPS=bpf,perfmon,sys_ptrace,checkpoint_restore
LIBDIR_MADE=
[ -e /var/lib/containers ] || LIBDIR_MADE=/var/lib/containers	# podman's blob cache

cleanup() {
	cleanup_children
	[ -n "${WCID:-}" ] && $PODMAN rm -f -t 0 "$WCID" >/dev/null 2>&1
	[ -n "$LIBDIR_MADE" ] && rm -rf "$LIBDIR_MADE"
	# the storage holds mounts only while containers run; --rm removed them
	[ -n "${KEEP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT

if ! command -v podman >/dev/null || ! command -v runc >/dev/null ||
   ! /usr/bin/python3 -c 'import kubernetes, yaml' 2>/dev/null; then
	LBP_APT_LISTS=tests/deps/apt.image tests/install-deps.sh core >"$TMP/deps.log" 2>&1 ||
		{ fail "podman installed" "$(tail -3 "$TMP/deps.log" | tr '\n' '|')"; exit 1; }
fi

# --- the DaemonSet's schema --------------------------------------------------
check "contrib/luabpfprof-daemonset.yaml passes the schema check" \
	bash -c "tests/k8s_check.py contrib/luabpfprof-daemonset.yaml >'$TMP/k8s.out' 2>&1"
sed 's/capabilities:/capabilitie:/' contrib/luabpfprof-daemonset.yaml >"$TMP/bad.yaml"
check "the schema check refuses an unknown field" \
	bash -c "! tests/k8s_check.py '$TMP/bad.yaml' >/dev/null 2>&1"
check "the manifest grants exactly the tested capabilities" \
	grep -q 'add: \["BPF", "PERFMON", "SYS_PTRACE", "CHECKPOINT_RESTORE"\]' contrib/luabpfprof-daemonset.yaml

# --- the bundle --------------------------------------------------------------
make -s bundle >"$TMP/make.log" 2>&1 || { fail "make bundle" "$(tail -3 "$TMP/make.log")"; exit 1; }
ROOT=$TOP/.output/bundle
check "bundle: runs in an empty chroot (nothing but the bundle)" \
	bash -c "env -i /usr/sbin/chroot '$ROOT' /opt/luabpfprof/bin/luabpfprof --version | grep -q '^luabpfprof '"
mkdir -p "$TMP/elsewhere"
cp -a "$ROOT/opt/luabpfprof" "$TMP/elsewhere/"
check "bundle: runs relocated through its own loader, every library its own" \
	bash -c "env -i $TMP/elsewhere/luabpfprof/lib/ld-linux-*.so.* --list $TMP/elsewhere/luabpfprof/bin/luabpfprof |
		grep '=>' | grep -v '$TMP/elsewhere' | grep -v 'linux-vdso' | grep -q . && exit 1
		env -i $TMP/elsewhere/luabpfprof/lib/ld-linux-*.so.* $TMP/elsewhere/luabpfprof/bin/luabpfprof --version | grep -q '^luabpfprof '"

# --- the images, built here --------------------------------------------------
# runc: crun refuses this VM's hybrid cgroups.  cgroupfs: no systemd here.
# vfs: no kernel overlay or fuse needed.  No journald: no events.
PODMAN="podman --root $TMP/storage --runroot $TMP/run --storage-driver vfs --runtime runc
	--cgroup-manager cgroupfs --events-backend none"
# podman's default limits are above this VM's hard ones (no CAP_SYS_RESOURCE)
LIMITS="--ulimit nofile=1024:4096 --ulimit nproc=4096:4096"
if ! $PODMAN build -q --network none -f contrib/Containerfile -t "$IMAGE" "$ROOT" >"$TMP/build.log" 2>&1; then
	fail "podman builds contrib/Containerfile" "$(tail -3 "$TMP/build.log" | tr '\n' '|')"
	exit 1
fi
pass "podman builds contrib/Containerfile FROM scratch"

# A LuaJIT workload image: Debian's luajit with the libraries it loads.
W=$TMP/wctx
mkdir -p "$W/w"
cp -a .deps/luajit-deb/. "$W/"
cp "$WL/w631.lua" "$W/w/"
# Run as /w/luajit: the system's luajit path stays one no test names (t_safety).
cp .deps/luajit-deb/usr/bin/luajit "$W/w/luajit"
ldd .deps/luajit-deb/usr/bin/luajit | awk '$2 == "=>" { print $3 } $1 ~ /^\// { print $1 }' |
	while read -r lib; do install -D "$lib" "$W$lib"; done
printf 'FROM scratch\nCOPY . /\nENV LUA_PATH=/usr/share/luajit-2.1.0-beta3/?.lua;;\n' >"$W/Containerfile"
$PODMAN build -q --network none -t "$WIMAGE" "$W" >"$TMP/wbuild.log" 2>&1 ||
	fail "workload image builds" "$(tail -3 "$TMP/wbuild.log" | tr '\n' '|')"

# agent ARGS...: the image, with the DaemonSet's privileges; $TMP/out is /out.
mkdir -p "$TMP/out"
agent() {
	$PODMAN run --rm --network none --uts host --pid host --read-only $LIMITS \
		--cap-drop all --cap-add "$CAPS" --security-opt seccomp=unconfined \
		-v "$TMP/out:/out" "$IMAGE" "$@"
}

# --- a host process ----------------------------------------------------------
start_bg "$LUAJIT" "$WL/w631.lua" 60
HOSTPID=$BGPID
wait_lua "$HOSTPID"
agent -p "$HOSTPID" -F 999 -d 8 -o /out/host.pb.gz 2>"$TMP/host.err"
check "image: profiles a host LuaJIT process" test -s "$TMP/out/host.pb.gz"
python3 tests/pprof_folded.py "$TMP/out/host.pb.gz" >"$TMP/host.folded" 2>/dev/null
TOL=3
for fn in a:60 b:30 c:10; do
	got=$(awk -v f="w631.lua:${fn%%:*}" '{ n = $NF; t += n; k = $0; sub(/ [0-9]+$/, "", k);
		m = split(k, fr, ";"); if (fr[m] == f) s += n }
		END { if (t) printf "%.1f", 100 * s / t }' "$TMP/host.folded")
	within "image: host w631 ${fn%%:*}'s share" "${got:-0}" "${fn#*:}"
done
PPROTO=$(dpkg -L golang-github-google-pprof-dev 2>/dev/null | grep '/proto/profile.proto$' | head -1)
if [ -n "$PPROTO" ]; then
	python3 tests/otlp_check.py labels "$PPROTO" "$TMP/out/host.pb.gz" >"$TMP/host.labels" 2>&1
	check "image: host process: pid label, no container label" \
		bash -c "grep -qx 'label pid=$HOSTPID' '$TMP/host.labels' && ! grep -q 'container\|pod' '$TMP/host.labels'"
fi

# --- a process in another container, found by -a ----------------------------
WCID=$($PODMAN run -d --network none $LIMITS "$WIMAGE" /w/luajit /w/w631.lua 60 2>"$TMP/wrun.err")
WPID=
for _ in $(seq 50); do
	WPID=$($PODMAN inspect -f '{{.State.Pid}}' "$WCID" 2>/dev/null)
	[ -n "$WPID" ] && [ "$WPID" != 0 ] && wait_lua "$WPID" && break
	sleep 0.1
done
if [ -z "$WCID" ] || [ -z "$WPID" ] || [ "$WPID" = 0 ]; then
	fail "a LuaJIT container runs" "$(head -c 300 "$TMP/wrun.err")"
else
	agent -a -d 3 -o /out/all.otlp 2>"$TMP/all.err"
	python3 tests/otlp_check.py summary "$OTLP_SCHEMA" "$TMP/out/all.otlp" >"$TMP/all.sum" 2>&1
	# one resource block per process: "profile pid=N ..." then its lines
	awk -v p="$HOSTPID" '/^profile / { on = ($2 == "pid=" p) } on' "$TMP/all.sum" >"$TMP/all.host"
	awk -v p="$WPID" '/^profile / { on = ($2 == "pid=" p) } on' "$TMP/all.sum" >"$TMP/all.cont"
	check "image -a: the host process, with the host's name and no container" \
		bash -c "grep -qx 'resource host.name=$(hostname)' '$TMP/all.host' && grep -q '^frame w631.lua:a ' '$TMP/all.host' &&
			! grep -q 'container' '$TMP/all.host'"
	check "image -a: the containerized process, with podman's container ID" \
		bash -c "grep -qx 'resource container.id=$WCID' '$TMP/all.cont' && grep -q '^frame w631.lua:a ' '$TMP/all.cont'"
fi

# --- what the privileges are for ---------------------------------------------
$PODMAN run --rm --network none --pid host $LIMITS --cap-drop all --cap-add bpf,perfmon \
	--security-opt seccomp=unconfined "$IMAGE" -p "$HOSTPID" -d 1 >/dev/null 2>"$TMP/noptrace.err"
check "image without CAP_SYS_PTRACE: says so in one line" grep -q 'without CAP_SYS_PTRACE' "$TMP/noptrace.err"
$PODMAN run --rm --network none --pid host $LIMITS --cap-drop all --cap-add "$CAPS" \
	"$IMAGE" -p "$HOSTPID" -d 1 >/dev/null 2>"$TMP/seccomp.err"
check "image under the default seccomp profile: bpf() refused (why the manifest says Unconfined)" \
	grep -q 'loading BPF: permission denied' "$TMP/seccomp.err"
