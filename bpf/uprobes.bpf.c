// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* VM life-cycle probes for -a: a uretprobe on luaL_newstate (and
 * lua_newstate) of every known LuaJIT object reports the process that just
 * created a VM, so user space can find it at once instead of at the next
 * /proc rescan.  Only the tgid travels: user space does the discovery.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16384);
} vm_events SEC(".maps");

SEC("uretprobe")
int BPF_KRETPROBE(vm_created, void *L)
{
	__u32 *tgid;

	if (!L)
		return 0;	/* creation failed: nothing to find */
	tgid = bpf_ringbuf_reserve(&vm_events, sizeof(*tgid), 0);
	if (!tgid)
		return 0;	/* full: the /proc rescan still finds it */
	*tgid = bpf_get_current_pid_tgid() >> 32;
	bpf_ringbuf_submit(tgid, 0);
	return 0;
}
