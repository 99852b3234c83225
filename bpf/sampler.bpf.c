// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The perf_event sampler: on every cpu-clock tick of a traced process, find
 * the LuaJIT VM running on this thread, read its state at this instant, walk
 * its Lua stack and count the sample in kernel maps that user space drains.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "sampler.h"
#include "lj_consts.h"
#include "regs.bpf.h"
#include "protos.bpf.h"
#include "walk.bpf.h"

/* Knobs set by the loader before load. */
const volatile __u32 walk_max_frames = LBP_MAX_FRAMES;
/* Timeline formats: the width of the time slots keys are split into; 0
 * aggregates over the whole drain interval. */
const volatile __u64 time_slot_ns = 0;
/* -e wall: the sampling period (0 in every other mode).  A cpu-clock
 * sample then weighs the time since this CPU's previous tick, at most
 * WALL_TICK_MAX_NS (or 4 periods, if longer), instead of the period: a
 * tick the kernel fires late (a busy VM host descheduling the vCPU for a
 * time slice, an emulated one) is time the thread ran all the same, and
 * off-CPU time, measured by timestamps, would outweigh it.  Only while
 * no switch came between: every sched_switch on the CPU (on_switch)
 * zeroes its last tick, and a tick after one weighs the period, so idle
 * time, and a thread's own time off the CPU, is never counted. */
const volatile __u64 wall_tick_ns = 0;
#define WALL_TICK_MAX_NS	100000000ull

/* Each CPU's last cpu-clock tick, whichever process it fell in. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} last_tick SEC(".maps");

#define VMSTATE_INTERP	(-1)
#define VMSTATE_C	(-2)	/* ~LJ_VMST_C: a C function the interpreter called */
#define VMSTATE_GC	(-3)	/* ~LJ_VMST_GC */
#define VMSTATE_UNNAMED	0	/* compiled code of a trace that does not store its number */

#include "maps.bpf.h"
#include "vmchoice.bpf.h"
#include "base.bpf.h"

static __always_inline void count_sample(struct sample_key *key, struct counter_block *cb,
					 __u64 weight)
{
	__u64 *n;

	n = bpf_map_lookup_elem(&counts, key);
	if (n) {
		__sync_fetch_and_add(n, weight);
		return;
	}
	if (bpf_map_update_elem(&counts, key, &weight, BPF_NOEXIST)) {
		n = bpf_map_lookup_elem(&counts, key);
		if (n)
			__sync_fetch_and_add(n, weight);
		else
			bump(cb, CNT_COUNT_MAP_FULL);
	}
}

#include "steps.bpf.h"
#include "reqlabel.bpf.h"

/* Whether ip is code outside the VM's own file (known once discovered). */
static __always_inline bool outside_vm(const struct vm_slot *vm, __u64 ip)
{
	return vm->obj_hi && (ip < vm->obj_lo || ip >= vm->obj_hi);
}

/* The base of the top frame to walk from (0: none found, the stack is
 * flagged STACK_NO_BASE), with the top frame's PC and pending link in wc:
 * g->jit_base while a trace runs, BASE/PC registers in the interpreter,
 * RB in C code the interpreter called with L->base stale, else L->base.
 * Counts where it came from. */
static __always_inline __u64 frame_base(const struct vm_slot *vm, struct scratch *sc,
					struct walk_ref *ref, const __u8 *lblk, __s32 vmstate,
					__u64 stack, const struct uregs *r,
					struct counter_block *cb)
{
	const struct lj_offsets *off = &vm->off;
	struct walk_ctx *wc = &sc->walk;
	__u64 base = 0;

	if (vmstate != VMSTATE_INTERP) {
		/* jit_base is non-zero only while a trace runs, including the C
		 * calls it makes (which may switch vmstate to C while L->base
		 * still names an older frame). */
		base = g_field(off, sc->g, off->g_jit_base, off->gc64 ? 8 : 4);
		if (base) {
			/* In the GC with jit_base set: a trace's GC step
			 * (lj_gc_step_jit), its trace searched for.  A trace
			 * that left vmstate 0 (arm64's BC_JLOOP does not
			 * store the number): the trace holding the IP, or,
			 * in C the trace called, the nearest return address. */
			__s32 tr = vmstate >= 1 ? vmstate :
				   vmstate == VMSTATE_GC ? trace_search(0, r->sp) :
				   vmstate == VMSTATE_UNNAMED ? trace_search(r->ip, 0) : 0;
			__u32 tf;

			if (vmstate == VMSTATE_UNNAMED && tr <= 0)
				tr = trace_search(0, r->sp);
			tf = tr > 0 ? trace_frames_now(tr, r->ip, r->sp) : 0;

			/* Code vmstate's trace jumped to (a side trace's
			 * link back into its root): the trace holding it. */
			if (tf & (1u << 30)) {
				tr = trace_search(r->ip, 0);
				tf = tr > 0 ? trace_frames_now(tr, r->ip, r->sp) : 0;
			}

			bump(cb, CNT_BASE_JIT);
			/* The frames the trace inlined, then the root's PC. */
			if (tf & 0x3fffffff)
				bump(cb, CNT_TRACE_INLINE);
			if (wc->pc)
				bump(cb, CNT_TRACE_PC);
			if (tf >> 31)
				bump(cb, CNT_TRACE_RETADDR);
			if (tf >> 31 && outside_vm(vm, r->ip))
				sc->tr.leaf_ip = r->ip;
		}
	}
	/* C outside the VM called by the interpreter: an FFI call. */
	if (vmstate == VMSTATE_C && outside_vm(vm, r->ip))
		sc->tr.leaf_ip = r->ip;
	if (!base && vmstate == VMSTATE_INTERP && r->ip >= vm->vm_lo && r->ip < vm->vm_hi) {
		base = interp_base(vm, stack, wc->stack_end, r, &wc->pc);
		if (base)
			bump(cb, CNT_BASE_REGS);
		/* PC holding a C-type link (low bits set): a frame being
		 * entered from C, whose link slot may not be written yet. */
		if (base && (r->pc & FRAME_TYPE))
			wc->top_link = (__s64)(r->pc & (off->gc64 ? ~0ull : 0xffffffffull));
	}
	if (!base) {
		__u64 cf = field(lblk, L_BLOCK, off->L_cframe - off->L_base, 8) & ~3ull;
		__u64 l_base = field(lblk, L_BLOCK, 0, off->gc64 ? 8 : 4);
		int stale = 0;

		base = l_base;
		if (vmstate == VMSTATE_INTERP && (r->ip < vm->vm_lo || r->ip >= vm->vm_hi))
			base = c_callee_base(vm, stack, wc->stack_end, cf, l_base, r, sc->saved_slots,
					     &stale);
		if (stale) {
			bump(cb, base ? CNT_BASE_RB : CNT_NO_BASE);
		} else {
			bump(cb, CNT_BASE_L);
			/* SAVE_PC in the VM's C frame is the top Lua frame's PC
			 * when the VM called out (C function, GC, helpers);
			 * validated later. */
			wc->pc = cf ? read_ref(off, cf + off->cframe_pc) : 0;
		}
	}

	return base;
}

/* What walk_sample leaves to do. */
#define WALK_GO		0	/* the walk: walk_threads, then walk_finish */
#define WALK_DROP	1	/* nothing: the event is dropped */
#define WALK_READY	2	/* nothing: the key is ready (no Lua on this thread) */

/* Prepares the walk of the current thread's Lua stack as it is at user
 * registers r (the VM, the top frame's base, a trace's inlined frames) and
 * fills key's class (vmstate, zone, flags); walk_threads then walks it and
 * walk_finish stores it under key's stack_id.  Shared by the cpu-clock
 * sampler, the allocation probe and the off-CPU program (offcpu.bpf.h).
 * Returns WALK_GO, WALK_DROP or WALK_READY. */
static __always_inline int walk_sample(struct scratch *sc, struct proc_info *pi,
				       const struct uregs *r, struct sample_key *key,
				       struct counter_block *cb)
{
	__u64 L, stack, base = 0;
	__u32 stacksize, chosen;
	const struct vm_slot *vm;
	const struct lj_offsets *off;
	struct walk_ref ref;
	struct walk_ctx *wc;
	const __u8 *lblk;
	__s32 vmstate;

	wc = &sc->walk;
	__builtin_memset(wc, 0, WALK_CTX_CLEARED);

	sc->tr.pending = 0;
	sc->tr.leaf_ip = 0;
	sc->tr.callee = 0;
	sc->tr.found = 0;
	if (!pi->nvms)
		bump(cb, CNT_NO_VM);
	chosen = vm_choose(key->pid);
	if (chosen >= LBP_MAX_VMS) {
		bump(cb, CNT_HOST);
		key->flags |= SAMPLE_HOST;
		return WALK_READY;
	}
	chosen = BOUNDED(chosen, LBP_MAX_VMS);
	vm = &pi->vm[chosen];
	L = sc->vm_L[chosen];
	off = &vm->off;
	/* sc->g holds the last VM read; reread when another one was chosen. */
	if (chosen != sc->g_vm && read_g_block(sc->g, vm))
		return WALK_DROP;
	lblk = sc->l[chosen];

	vmstate = (__s32)g_field(off, sc->g, off->g_vmstate, 4);
	key->vmstate = vmstate;
	key->zone = zone_top(vm);

	stack = field(lblk, L_BLOCK, off->L_stack - off->L_base, off->gc64 ? 8 : 4);
	stacksize = (__u32)field(lblk, L_BLOCK, off->L_stacksize - off->L_base, 4);
	wc->off = *off;
	wc->L = L;
	wc->g = vm->g;
	wc->tgid = key->pid;
	wc->bottom = stack + 8 * off->gc64;
	wc->stack_end = stack + 8ull * stacksize;
	wc->stack_lo = stack;
	wc->hash = mix_hash(0x5bd1e995, vm->g);
	/* The string epoch (walkcache.bpf.h); 0, no cached id trusted, where
	 * the layout has none. */
	wc->strep = off->g_strnum ? g_field(off, sc->g, off->g_strnum, 8) | 1 : 0;
	wc->max = walk_max_frames < LBP_MAX_FRAMES ? walk_max_frames : LBP_MAX_FRAMES;
	sc->win.len = 0;
	sc->st.nown = 0;
	sc->st.nthreads = 0;
	ref.c = wc;
	ref.win = &sc->win;
	ref.st = &sc->st;

	/* A trace's inlined frames are found here, before the walk. */
	base = frame_base(vm, sc, &ref, lblk, vmstate, stack, r, cb);
	/* A trace found by its code names the sample as vmstate would. */
	if (vmstate == VMSTATE_UNNAMED && base && sc->tr.found > 0)
		key->vmstate = sc->tr.found;
	/* No base: no frames, flagged, rather than a walk from a stale one. */
	wc->frame = base ? base - 8 : 0;
	if (!base)
		wc->flags |= STACK_NO_BASE;
	/* In an FFI call of the interpreter (its set-up in the VM, or the C
	 * function): the C function it calls. */
	sc->tr.callee = 0;
	if (vmstate == VMSTATE_C)
		sc->tr.callee = ffi_callee(off->gc64, base);
	wc->mainth = g_field(off, sc->g, off->g_mainthref, off->gc64 ? 8 : 4);
	wc->cframe = field(lblk, L_BLOCK, off->L_cframe - off->L_base, 8) & CFRAME_RAWMASK;
	wc->cframe_top = wc->cframe;
	sc->st.g = vm->g;
	return WALK_GO;
}

/* After the walk: its counts, and the stack in the stacks map under the
 * key's stack id.  A global function, as walk_threads (which walk_now
 * calls between the two), so that no call chain goes through all three. */
__noinline int walk_finish(void)
{
	struct counter_block *cb;
	struct walk_ctx *wc;
	struct scratch *sc;
	__u32 zero = 0;
	__u64 id;

	cb = bpf_map_lookup_elem(&counters, &zero);
	sc = bpf_map_lookup_elem(&scratch, &zero);
	if (!sc)
		return 1;
	wc = &sc->walk;
	if (cb && wc->proto_lost)
		cb->n[CNT_PROTO_LOST] += wc->proto_lost;
	if (cb)
		cb->n[CNT_WALK_CACHED] += wc->cache_hits;
	sc->st.nframes = wc->n;
	sc->st.flags = wc->flags;
	id = mix_hash(mix_hash(wc->hash, wc->n ^ ((__u64)wc->flags << 32)), sc->st.nown) | 1;
	sc->key.stack_id = id;
	/* Most samples repeat a known stack: look up before inserting. */
	if (!bpf_map_lookup_elem(&stacks, &id) &&
	    bpf_map_update_elem(&stacks, &id, &sc->st, BPF_NOEXIST) &&
	    !bpf_map_lookup_elem(&stacks, &id)) {
		bump(cb, CNT_STACK_MAP_FULL);
		sc->key.stack_id = 0;
		sc->key.flags |= SAMPLE_NO_STACK;
	}
	return 0;
}

/* Walks the current thread of process tgid at the registers in this CPU's
 * scratch (sc->regs) and completes the key waiting there (sc->key, pid,
 * tid and flags set): walk_sample.  0 when the key is ready to count.
 *
 * A global function: the verifier checks it once, on its own, however
 * many paths of the program lead to it (the sched_switch program's two
 * paths had it verified twice, at 95% of the million-instruction limit). */
__noinline int walk_current(__u32 tgid)
{
	struct proc_info *pi = bpf_map_lookup_elem(&procs, &tgid);
	struct counter_block *cb;
	struct scratch *sc;
	__u32 zero = 0;

	cb = bpf_map_lookup_elem(&counters, &zero);
	sc = bpf_map_lookup_elem(&scratch, &zero);
	if (!sc || !pi)
		return 1;
	return walk_sample(sc, pi, &sc->regs, &sc->key, cb);
}

/* Walks the current thread of process tgid at sc->regs and completes
 * sc->key: 0 when it is ready to count, else the event is dropped.  Three
 * global functions in a row, each its own call chain for the verifier. */
static __always_inline int walk_now(__u32 tgid)
{
	int rc = walk_current(tgid);

	if (rc == WALK_DROP)
		return 1;
	if (rc == WALK_GO) {
		/* Before the walk, which may move on to a resumer's lua_State. */
		req_label(tgid);
		walk_threads();
		walk_finish();
	}
	return 0;
}

/* Prepares the key of a sample of the current thread (id: pid_tgid). */
static __always_inline void key_init(struct scratch *sc, __u64 id, __u32 flags)
{
	__builtin_memset(&sc->key, 0, sizeof(sc->key));
	sc->key.pid = id >> 32;
	sc->key.tid = (__u32)id;
	sc->key.flags = flags;
	if (time_slot_ns)
		sc->key.time_slot = bpf_ktime_get_ns() / time_slot_ns;
}

/* Walks the current thread (id: pid_tgid) at the registers in sc->regs
 * and counts weight samples of it: the cpu-clock sampler (weight 1) and
 * the allocation probe (one per interval of bytes crossed, alloc.bpf.h). */
static __always_inline int sample_and_count(struct scratch *sc, __u64 id, __u64 weight,
					    __u32 flags, struct bpf_perf_event_data *ctx)
{
	struct counter_block *cb;
	struct sample_key key;
	__u32 zero = 0;

	cb = bpf_map_lookup_elem(&counters, &zero);
	bump(cb, CNT_SAMPLES);
	key_init(sc, id, 0);
	if (walk_now(id >> 32))
		return 0;
	/* Map lookups take their key from the stack. */
	key = sc->key;
	/* --native: the sample goes to user space with its native stack
	 * instead (native.bpf.h); a full ring keeps it here, Lua frames only. */
	if (native_stack && ctx) {
		if (native_send(ctx, sc->kregs_valid ? &sc->kregs : NULL, &key, sc->walk.cframe_top,
				sc->st.nthreads ? sc->walk.cframe : 0))
			return 0;
		bump(cb, CNT_NATIVE_LOST);
	}
	key.flags |= flags;
	count_sample(&key, cb, weight);
	return 0;
}

/* -e wall: the nanoseconds this tick stands for (wall_tick_ns). */
static __always_inline __u64 tick_elapsed(void)
{
	__u32 zero = 0;
	__u64 now, d, cap, *last = bpf_map_lookup_elem(&last_tick, &zero);

	if (!last)
		return wall_tick_ns;
	now = bpf_ktime_get_ns();
	d = *last && now > *last ? now - *last : wall_tick_ns;	/* 0: a switch since */
	*last = now;
	cap = 4 * wall_tick_ns > WALL_TICK_MAX_NS ? 4 * wall_tick_ns : WALL_TICK_MAX_NS;
	return d < cap ? d : cap;
}

SEC("perf_event")
int on_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, zero = 0;
	struct scratch *sc;
	__u64 ns = 0;

	/* Every tick moves its CPU's clock, a traced process's or not. */
	if (wall_tick_ns)
		ns = tick_elapsed();
	if (!bpf_map_lookup_elem(&procs, &tgid))
		return 0;	/* the cheap early exit for every other process */
	sc = bpf_map_lookup_elem(&scratch, &zero);
	if (!sc)
		return 0;
	/* Read in place first, whatever the mode: the compiler would merge
	 * the two copies below into one through a pointer to the context,
	 * which the verifier refuses. */
	UREGS_FROM_CTX(&sc->regs, ctx->regs);
	sc->kregs_valid = !IN_USER_MODE(ctx->regs);
	if (sc->kregs_valid) {
		task_user_regs(&sc->kregs);
		uregs_from(&sc->regs, &sc->kregs);
	}
	if (wall_tick_ns)
		return sample_and_count(sc, id, OFFCPU_VALUE(1, ns), SAMPLE_TIMED, ctx);
	return sample_and_count(sc, id, 1, 0, ctx);
}

#include "offcpu.bpf.h"
#include "alloc.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";
