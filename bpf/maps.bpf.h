/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The state the sampler's programs share: the maps user space reads
 * (procs, stacks, counts, counters) and this CPU's scratch, where a
 * sample's walk keeps what is too large for the BPF stack.  The order of
 * the definitions is the maps' order in the object.
 */
#ifndef LBP_MAPS_BPF_H
#define LBP_MAPS_BPF_H

#include "prelude.bpf.h"
#include "regs.bpf.h"
#include "walk.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct proc_info);
} procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);	/* the loader resizes it */
	__type(key, __u64);
	__type(value, struct stack_trace);
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);	/* the loader resizes it */
	__type(key, struct sample_key);
	__type(value, __u64);
} counts SEC(".maps");

/* Error and path counters: one per-CPU block (sampler.h), looked up once
 * a sample. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct counter_block);
} counters SEC(".maps");

#include "trace.bpf.h"

/* Blocks of target memory read in one go: each bpf_probe_read_user is a
 * helper call that costs as much as a read of a kilobyte (bench/RESULTS.md,
 * figure 2), so neighbouring fields are fetched together and picked out
 * here.  The global_State block is LBP_G_BLOCK (sampler.h). */
#define L_BLOCK		64	/* from L->base past L->stacksize */

struct scratch {
	/* The sample: its user registers, the key it is counted under,
	 * and, when it interrupted the kernel, the registers user mode
	 * left at kernel entry (kregs_valid). */
	struct uregs regs;
	struct sample_key key;
	struct pt_regs kregs;
	__u32 kregs_valid;
	/* The VM choice (vm_choose): which VM's block sc->g holds, and each
	 * VM's lua_State running on this thread. */
	__u32 g_vm;
	__u64 vm_L[LBP_MAX_VMS];
	/* Reads kept off the stack: the jit.zone stack's slots, and the
	 * callee-saved slots searched for RB (base.bpf.h). */
	__u64 zone_slots[LBP_MAX_ZONE];
	__u64 saved_slots[SAVED_SLOTS];
	struct stack_trace st;	/* the stack being built */
	struct stack_window win;	/* Lua stack slots (walk.bpf.h) */
	struct walk_ctx walk;
	__u8 g[LBP_G_BLOCK];
	__u8 l[LBP_MAX_VMS][L_BLOCK];
	struct tr_scratch tr;	/* trace.bpf.h; its t also serves walk_resumer */
};

/* Too large for the BPF stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} scratch SEC(".maps");

#endif
