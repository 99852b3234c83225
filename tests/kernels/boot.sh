#!/bin/bash
# SPDX-License-Identifier: MIT
# boot.sh PACKAGE GUEST_SCRIPT [VAR=VALUE...]: boots Debian's kernel
# PACKAGE (linux-image-...) under qemu's TCG emulation (no KVM here) with
# this machine's root filesystem shared read-only over virtio-9p, runs
# GUEST_SCRIPT there as root with the VARs set, prints the guest's
# console, and powers it off.  Nothing is installed and nothing of the
# host changes: the kernel package comes from Debian's registry with
# `apt-get download` through a private apt configuration of its suite
# (the system's sources are only read, for the mirror they name).
#
# Exit status: the guest script's, 3 when the registry cannot serve the
# package, 4 when the guest never reached the script (a failed boot).
#
# Cache (downloads, lists, unpacked kernels): $LBP_CACHE/kernels, default
# /var/cache/luabpfprof/kernels, root's own and closed to others (its
# contents are booted as root).  Needs qemu-system-x86 and busybox-static.
#
# An arm64 kernel (linux-image-*-arm64) boots under qemu-system-aarch64
# (-machine virt -cpu max, package qemu-system-arm) with GUEST_ROOT, an
# arm64 root tree (tests/arm64/sysroot.sh), shared read-only instead of this
# machine's root, and its busybox in the initramfs; GUEST_ROOT's /lbp shows
# TOP (read-only) and its /out the host folder OUT_DIR (writable), for
# the files the host checks after.  `boot.sh PACKAGE --fetch` only prints
# the unpacked kernel package's folder.
set -euo pipefail
pkg=${1:?usage: boot.sh PACKAGE GUEST_SCRIPT [VAR=VALUE...]}
script=${2:?usage: boot.sh PACKAGE GUEST_SCRIPT [VAR=VALUE...]}
shift 2
CACHE=${LBP_CACHE:-/var/cache/luabpfprof}/kernels
MEM=${MEM:-3G}
TIMEOUT=${TIMEOUT:-900}
log() { echo "boot: $*" >&2; }
case $pkg in
*-arm64)	KARCH=arm64 ;;
*)		KARCH=amd64 ;;
esac

source "$(dirname "$0")/apt.sh"
cache_dir "$CACHE"

# --- The package, from its suite ------------------------------------------------

# suite_of PACKAGE: the release that serves it, by Debian's version naming,
# and its other suites besides security.
suite_of() {
	case $1 in
	*-5.10.0-*)	echo bullseye bullseye-updates ;;
	*+deb13-*)	echo trixie trixie-updates trixie-backports ;;
	*)		echo bookworm bookworm-updates ;;
	esac
}

# apt_for RELEASE SUITE...: apt options for a private configuration of the
# release's suites and its security suite (kernels' updates go there).
# Another architecture's packages (arm64) come through a configuration that
# names it alone, with no dpkg status: dpkg's architectures stay untouched.
APT=()
apt_for() {
	local dir=$CACHE/apt-$1 m sec s key=/usr/share/keyrings/debian-archive-keyring.gpg opt=
	[ "$KARCH" = amd64 ] || { dir=$dir-$KARCH; opt="arch=$KARCH "; }
	m=$(mirror) || m=http://deb.debian.org/debian
	sec=$(mirror security) || sec=http://deb.debian.org/debian-security
	mkdir -p "$dir/lists/partial" "$dir/archives/partial"
	{
		for s in "$@"; do echo "deb [${opt}signed-by=$key] $m $s main"; done
		echo "deb [${opt}signed-by=$key] $sec $1-security main"
	} >"$dir/sources.list"
	APT=(-o Dir::Etc::SourceList="$dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
	     -o Dir::State::Lists="$dir/lists" -o Dir::Cache="$dir" -o Dir::Cache::archives="$dir/archives"
	     -o APT::Sandbox::User=root)
	[ "$KARCH" = amd64 ] || APT+=(-o APT::Architecture="$KARCH" -o APT::Architectures::="$KARCH"
				      -o Dir::State::status=/dev/null)
	if ! ls "$dir"/lists/*_InRelease >/dev/null 2>&1; then
		apt-get "${APT[@]}" -qq update >&2 || return 1
	fi
}

# fetch NAME: NAME's .deb in $CACHE/debs, downloaded once.
fetch() {
	local deb
	deb=$(ls "$CACHE"/debs/"$1"_*.deb 2>/dev/null | sort -V | tail -n 1 || true)
	if [ -z "$deb" ]; then
		mkdir -p "$CACHE/debs"
		(cd "$CACHE/debs" && apt-get "${APT[@]}" -qq download "$1" >&2) || return 1
		deb=$(ls "$CACHE"/debs/"$1"_*.deb | sort -V | tail -n 1)
	fi
	echo "$deb"
}

tree=$CACHE/k/$pkg
if [ ! -f "$tree/.unpacked" ]; then
	# shellcheck disable=SC2046
	apt_for $(suite_of "$pkg") || { log "no package lists for $pkg's suite"; exit 3; }
	deb=$(fetch "$pkg") || { log "the registry does not serve $pkg"; exit 3; }
	rm -rf "$tree"
	mkdir -p "$tree"
	dpkg -x "$deb" "$tree"
	# From 6.19 on, linux-image-* only depends on the kernel (linux-binary-*)
	# and its modules (linux-modules-*).
	if [ -z "$(find "$tree" -name 'vmlinuz*' | head -n 1)" ]; then
		ver=${pkg#linux-image-}
		for part in linux-binary-$ver linux-modules-$ver; do
			deb=$(fetch "$part") || { log "the registry does not serve $part"; exit 3; }
			dpkg -x "$deb" "$tree"
		done
	fi
	touch "$tree/.unpacked"
fi
moddir=$({ find "$tree/lib/modules" "$tree/usr/lib/modules" -mindepth 1 -maxdepth 1 -type d 2>/dev/null || true; } | head -n 1)
vmlinuz=$(find "$tree" -name 'vmlinuz*' -type f | head -n 1)
[ -n "$moddir" ] && [ -n "$vmlinuz" ] || { log "$pkg has no kernel or no modules"; exit 3; }
if [ "$script" = --fetch ]; then
	echo "$tree"
	exit 0
fi
GUEST_ROOT=${GUEST_ROOT:-/}
if [ "$KARCH" = arm64 ]; then
	[ "$GUEST_ROOT" != / ] && [ -x "$GUEST_ROOT/bin/busybox" ] && [ -d "$GUEST_ROOT/lbp" ] ||
		{ log "an arm64 kernel needs GUEST_ROOT, an arm64 root with /bin/busybox and /lbp"; exit 1; }
	[ -d "${OUT_DIR:-}" ] || { log "an arm64 kernel needs OUT_DIR, a folder for the guest's files"; exit 1; }
fi

# --- The initramfs: busybox, the 9p modules, the init ---------------------------------
work=$(mktemp -d /tmp/lbp-boot.XXXXXX)
trap 'rm -rf "$work"' EXIT
ird=$work/initrd
mkdir -p "$ird"/{bin,proc,sys,dev,root,mods}
cp "$GUEST_ROOT/bin/busybox" "$ird/bin/busybox"

# The modules 9p over virtio needs, each after what it depends on (their
# .modinfo names them); those built into the kernel need nothing.
declare -A seen=()
order=()
add_module() {
	local m=$1 f dep
	[ -n "${seen[$m]:-}" ] && return 0
	seen[$m]=1
	f=$(find "$moddir" \( -name "$m.ko*" -o -name "${m//_/-}.ko*" \) | head -n 1)
	[ -n "$f" ] || return 0
	case $f in
	*.xz)	xz -dc "$f" ;;
	*.zst)	zstd -qdc "$f" ;;
	*)	cat "$f" ;;
	esac >"$ird/mods/$m.ko"
	for dep in $(strings "$ird/mods/$m.ko" | sed -n 's/^depends=//p' | head -n 1 | tr ',' ' '); do
		add_module "$dep"
	done
	order+=("$m")
}
for m in virtio_pci 9pnet_virtio 9p; do add_module "$m"; done

# The guest's environment: the VARs, and TOP's folder kept visible when it
# is under /tmp (the guest mounts a fresh tmpfs there).
{
	echo '#!/bin/bash'
	for kv in "$@"; do printf 'export %q\n' "$kv"; done
	cat "$script"
} >"$ird/test.sh"
keep=
for kv in "$@"; do
	case $kv in TOP=/tmp/*) keep=${kv#TOP=} ;; esac
done

cat >"$ird/init" <<EOF
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in ${order[*]}; do insmod /mods/\$m.ko || echo "boot: insmod \$m failed"; done
R=/root
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=loose,ro hostroot \$R ||
	{ echo "boot: the host root cannot be mounted"; poweroff -f; }
mount -t tmpfs -o mode=755 run \$R/run
mkdir -p \$R/run/host-tmp
mount -o bind \$R/tmp \$R/run/host-tmp
mount -t tmpfs -o mode=1777 tmp \$R/tmp
if [ -n "$keep" ]; then
	mkdir -p \$R$keep
	mount -o bind \$R/run/host-tmp/${keep#/tmp/} \$R$keep
fi
if [ $KARCH = arm64 ]; then
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,ro top \$R/lbp
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 out \$R/out
fi
mount -t proc proc \$R/proc
mount -t sysfs sys \$R/sys
mount -t devtmpfs dev \$R/dev
mkdir -p \$R/dev/pts \$R/dev/shm
ln -sf /proc/self/fd \$R/dev/fd
mount -t devpts devpts \$R/dev/pts
mount -t tmpfs shm \$R/dev/shm
mount -t bpf bpf \$R/sys/fs/bpf
mount -t tracefs tracefs \$R/sys/kernel/tracing
mount -t debugfs debugfs \$R/sys/kernel/debug
cp /test.sh \$R/tmp/test.sh
echo "GUEST-START \$(uname -r)"
chroot \$R /usr/bin/env -i HOME=/tmp TERM=dumb PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \\
	/bin/bash /tmp/test.sh
echo "GUEST-EXIT \$?"
poweroff -f
EOF
chmod +x "$ird/init"
(cd "$ird" && find . | busybox cpio -o -H newc 2>/dev/null | gzip -1) >"$work/initrd.gz"

# --- Boot -------------------------------------------------------------------------------
if [ "$KARCH" = arm64 ]; then
	QEMU=(qemu-system-aarch64 -machine virt -accel tcg -cpu max,pauth-impdef=on
	      -virtfs "local,path=$(cd "$(dirname "$0")/../.." && pwd),mount_tag=top,security_model=none,readonly=on,multidevs=remap"
	      -virtfs "local,path=$OUT_DIR,mount_tag=out,security_model=none,multidevs=remap")
	CONSOLE=ttyAMA0
else
	QEMU=(qemu-system-x86_64 -accel tcg -cpu max)
	CONSOLE=ttyS0
fi
boot() {
	timeout "$TIMEOUT" "${QEMU[@]}" -smp 2 -m "$MEM" -no-reboot \
		-display none -serial stdio -monitor none -net none \
		-kernel "$vmlinuz" -initrd "$work/initrd.gz" \
		-append "console=$CONSOLE quiet loglevel=3 panic=-1 mitigations=off rdinit=/init" \
		-virtfs "local,path=$GUEST_ROOT,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap" \
		</dev/null 2>&1 | tr -d '\r' | tee "$work/console"
}
boot
# Emulation sometimes oopses while booting (seen once with 7.3.4): a boot
# that never reached the script is tried once more, and says so.
if ! grep -q '^GUEST-START' "$work/console"; then
	log "$pkg did not reach the test; booting it once more"
	boot
fi
grep -q '^GUEST-START' "$work/console" || exit 4
rc=$(sed -n 's/^GUEST-EXIT \([0-9]*\)$/\1/p' "$work/console" | tail -n 1)
exit "${rc:-4}"
