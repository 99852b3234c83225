#!/bin/bash
# SPDX-License-Identifier: MIT
# The kernel matrix (issue 25): this machine's kernel says nothing of the
# verifiers users have, so each kernel of tests/kernels/matrix, Debian's
# own packages, boots under qemu (tests/kernels/boot.sh) with this machine's
# root shared read-only and runs tests/kernels/guest.sh there: every mode's
# programs load with room under the verifier's limits, and the ground
# truths hold (6:3:1, off-CPU, wall, --native, --jit, -e alloc, pprof and
# SVG read back).  The guest's PASS/FAIL lines are this test's; a kernel
# the registry cannot serve is a SKIP line that says so, never a pass.
# Prints each kernel's time.  LBP_KERNELS="PKG ..." runs those instead.
source "$(dirname "$0")/lib.sh"

mapfile -t kernels < <(grep -v '^#' "$TOP/tests/kernels/matrix" | awk 'NF { print $1 }')
[ -n "${LBP_KERNELS:-}" ] && read -r -a kernels <<<"$LBP_KERNELS"
# checks_of PKG: the matrix's second column for it (full by default).
checks_of() { awk -v p="$1" '$1 == p { print ($2 == "" ? "full" : $2) }' "$TOP/tests/kernels/matrix"; }
for tool in qemu-system-x86_64 busybox python3 xmllint; do
	command -v "$tool" >/dev/null || { fail "kernel matrix: $tool" "not installed (tests/deps/apt.kernels)"; exit 1; }
done

# Ended from outside (run.sh's hang rule): what the guest printed last.
trap 'echo "FAIL: kernel $pkg: ended after $((SECONDS - start)) s, in: $(grep -E "^(time|PASS|FAIL|GUEST)" "$log" 2>/dev/null | tail -n 3 | tr "\n" "|")"; exit 1' TERM

for pkg in "${kernels[@]}"; do
	start=$SECONDS
	log=$TMP/$pkg.console
	checks=$(checks_of "$pkg")
	"$TOP/tests/kernels/boot.sh" "$pkg" "$TOP/tests/kernels/guest.sh" "TOP=$TOP" "CHECKS=${checks:-full}" >"$log" 2>&1
	rc=$?
	# A guest that died booting, before the test started (an emulated
	# kernel's oops under TCG, seen once in ~20 boots), ran none of our code:
	# said, and booted once more.  A failure in the test is never retried.
	if [ "$rc" -eq 4 ]; then
		echo "kernel $pkg: the guest died before the test ($(grep -m1 -E 'Oops|BUG|panic' "$log" | tr -d '\r' | cut -c1-120)); booting it again"
		"$TOP/tests/kernels/boot.sh" "$pkg" "$TOP/tests/kernels/guest.sh" "TOP=$TOP" "CHECKS=${checks:-full}" >"$log" 2>&1
		rc=$?
	fi
	# 4 after GUEST-START: the guest stopped before printing its exit
	# status (guest.sh's watchdog powered it off, or the host's timeout).
	[ "$rc" = 4 ] && grep -q '^GUEST-START' "$log" && rc=5
	case $rc in
	3)	echo "SKIP: kernel $pkg: Debian's registry could not serve it ($(grep '^boot: ' "$log" | tail -n 1))" ;;
	4)	fail "kernel $pkg boots" "the guest never reached the test: $(tail -n 5 "$log" | tr '\n' '|')" ;;
	*)	grep -E '^(verifier|dmesg): ' "$log"
		sed -n "s/^time: /time: kernel $pkg: /p" "$log"
		grep -E '^(PASS|FAIL): ' "$log"
		if ! grep -q '^END kernel ' "$log"; then
			# guest.sh's watchdog: what every task waited in
			sed -n '/^WATCHDOG: /,$p' "$log" | grep -v '^\[ *[0-9.]*\] *\(R[A-Z0-9]*\|Code\):' |
				head -n 120 | sed 's/^/    hang: /'
			fail "kernel $pkg: the guest test ran to its end" "exit $rc: $(grep -v '^\[' "$log" | tail -n 5 | tr '\n' '|')"
		fi ;;
	esac
	echo "time: kernel $pkg $((SECONDS - start)) s"
done
