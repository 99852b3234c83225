// SPDX-License-Identifier: GPL-2.0
/* The perf_event sampler: on every cpu-clock tick of a traced process, find
 * the LuaJIT VM running on this thread, read its state at this instant, walk
 * its Lua stack and count the sample in kernel maps that user space drains.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "sampler.h"
#include "protos.bpf.h"
#include "walk.bpf.h"

/* Knobs set by the loader before load. */
const volatile __u32 walk_max_frames = LBP_MAX_FRAMES;
/* A VM activation's C frame must lie this close above the sampled stack
 * pointer to belong to this thread (threads' stacks are megabytes apart). */
const volatile __u64 cframe_max_dist = 1 << 20;

#define VMSTATE_INTERP	(-1)
#define USER_ADDR_END	0x800000000000ull

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

/* Error and path counters: one per-CPU block, looked up once a sample. */
struct counter_block {
	__u64 n[CNT__MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct counter_block);
} counters SEC(".maps");

/* Little-endian field of 4 or 8 bytes at a bounded offset of a block. */
static __always_inline __u64 field(const __u8 *blk, __u32 blk_size, __u32 off, __u32 size)
{
	__u64 v = 0;

	off &= 0x7ff;
	if (off > blk_size - 8)
		return 0;
	__builtin_memcpy(&v, blk + off, 8);
	return size == 8 ? v : (v & 0xffffffffull);
}

/* Whether global_State field [at, at + size) lies in the block a sample
 * read (struct lj_offsets g_blk). */
static __always_inline bool g_has(const struct lj_offsets *off, __u32 at, __u32 size)
{
	return at >= off->g_blk && at + size <= (__u32)off->g_blk + off->g_blk_len;
}

/* global_State field `at` (relative to g) from that block, 0 outside it. */
static __always_inline __u64 g_field(const struct lj_offsets *off, const __u8 *gblk,
				     __u32 at, __u32 size)
{
	if (!g_has(off, at, size))
		return 0;
	return field(gblk, LBP_G_BLOCK, at - off->g_blk, size);
}

#include "trace.bpf.h"

/* Blocks of target memory read in one go: each bpf_probe_read_user is a
 * helper call that costs as much as a read of a kilobyte (bench/RESULTS.md,
 * figure 2), so neighbouring fields are fetched together and picked out
 * here.  The global_State block is LBP_G_BLOCK (sampler.h). */
#define L_BLOCK		64	/* from L->base past L->stacksize */

struct scratch {
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

/* trace_frames (trace.bpf.h) for the walk this CPU's scratch holds (its
 * offsets and VM set): the count of frames recorded, bit 31 set when the
 * trace was found through a return address.  A global function, verified
 * once on its own (see walk_threads). */
__noinline __u32 trace_frames_now(__s32 traceno, __u64 ip, __u64 sp)
{
	struct walk_ref ref;
	struct scratch *sc;
	__u32 zero = 0, n;
	int by_ra = 0;

	sc = bpf_map_lookup_elem(&scratch, &zero);
	if (!sc)
		return 0;
	ref.c = &sc->walk;
	ref.win = &sc->win;
	ref.st = &sc->st;
	n = trace_frames(&sc->tr, &ref, sc->g, traceno, ip, sp, &by_ra);
	return (n & 0x7fffffff) | (by_ra ? 1u << 31 : 0);
}

static __always_inline void bump(struct counter_block *cb, __u32 counter)
{
	if (cb && counter < CNT__MAX)
		cb->n[counter]++;
}

/* Reads a GCRef/MRef: 8 bytes in GC64 builds, 4 otherwise. */
static __always_inline __u64 read_ref(const struct lj_offsets *off, __u64 addr)
{
	__u64 v = 0;

	bpf_probe_read_user(&v, off->gc64 ? 8 : 4, (void *)addr);
	return v;
}

static __always_inline __u64 read_u64(__u64 addr)
{
	__u64 v = 0;

	bpf_probe_read_user(&v, 8, (void *)addr);
	return v;
}

/* The user-mode registers of the sampled thread, also when the tick landed
 * in the kernel (a syscall). */
struct uregs {
	__u64 ip, sp, dx, bx, bp, r14;
};

/* The registers the current thread's user mode left at kernel entry. */
static __always_inline void task_uregs(struct uregs *r)
{
	struct pt_regs regs = {};

	/* Exact for an interrupt or fault taken in the interpreter; BASE/PC
	 * are only trusted later for IPs inside it, which a syscall never
	 * is.  One copy: BPF_CORE_READ would make a helper call per field. */
	bpf_probe_read_kernel(&regs, sizeof(regs), (void *)bpf_task_pt_regs(bpf_get_current_task_btf()));
	r->ip = regs.ip;
	r->sp = regs.sp;
	r->dx = regs.dx;
	r->bx = regs.bx;
	r->bp = regs.bp;
	r->r14 = regs.r14;
}

static __always_inline void get_uregs(struct bpf_perf_event_data *ctx, struct uregs *r)
{
	/* User mode iff the IP is a user-space address (below the canonical
	 * hole); reading cs would need its exact width in this kernel. */
	if (ctx->regs.ip < USER_ADDR_END) {
		r->ip = ctx->regs.ip;
		r->sp = ctx->regs.sp;
		r->dx = ctx->regs.dx;
		r->bx = ctx->regs.bx;
		r->bp = ctx->regs.bp;
		r->r14 = ctx->regs.r14;
	} else {
		task_uregs(r);
	}
}

/* Reads VM v's global_State block into gblk. */
static __always_inline long read_g_block(__u8 *gblk, const struct vm_slot *v)
{
	__u32 len = v->off.g_blk_len;

	if (len < 8 || len > LBP_G_BLOCK)
		return -1;
	return bpf_probe_read_user(gblk, len, (void *)(v->g + v->off.g_blk));
}

/* The lua_State running Lua on this thread for VM v, or 0, with its fields
 * (L_BLOCK bytes from L->base) in lblk and the distance of its C frame
 * above sp in *dist.  gblk holds the VM's global_State block. */
static __always_inline __u64 active_state(const struct vm_slot *v, const __u8 *gblk,
					  __u8 *lblk, __u64 sp, __u64 *dist)
{
	const struct lj_offsets *off = &v->off;
	__u32 ref = off->gc64 ? 8 : 4;
	__u64 L, cf = 0;

	L = g_field(off, gblk, off->g_cur_L, ref);
	if (L && !bpf_probe_read_user(lblk, L_BLOCK, (void *)(L + off->L_base)))
		cf = field(lblk, L_BLOCK, off->L_cframe - off->L_base, 8) & ~3ull;
	if (!cf) {
		/* A C function that resumed a coroutine leaves cur_L on the
		 * suspended coroutine until it returns: try the main thread. */
		L = g_field(off, gblk, off->g_mainthref, ref);
		if (L && !bpf_probe_read_user(lblk, L_BLOCK, (void *)(L + off->L_base)))
			cf = field(lblk, L_BLOCK, off->L_cframe - off->L_base, 8) & ~3ull;
	}
	if (!cf || cf < sp || cf - sp >= cframe_max_dist)
		return 0;
	*dist = cf - sp;
	return L;
}

#include "base.bpf.h"

/* The GCstr on top of the jit.zone stack (the module table's array part).
 * A global function, so the verifier checks its loop once, not again on
 * every path of every program that samples (scalars only, as global
 * functions take). */
__noinline __u64 zone_top_of(__u64 zone_tab, __u32 tab_array, __u32 tab_asize, __u32 gc64)
{
	__u64 slots[LBP_MAX_ZONE], array = 0, top = 0;
	__u32 asize = 0, n;

	if (!zone_tab)
		return 0;
	bpf_probe_read_user(&array, gc64 ? 8 : 4, (void *)(zone_tab + tab_array));
	bpf_probe_read_user(&asize, 4, (void *)(zone_tab + tab_asize));
	if (!array || asize < 2)
		return 0;
	n = asize < LBP_MAX_ZONE ? asize : LBP_MAX_ZONE;
	if (bpf_probe_read_user(slots, sizeof(slots), (void *)array))
		return 0;
	for (__u32 i = 1; i < LBP_MAX_ZONE; i++) {
		__u64 tv = slots[i];

		if (i >= n)
			break;
		if (gc64) {
			if (tv == ~0ull)	/* nil */
				break;
			if (gc64_itype(tv) == ITYPE_STR)
				top = tv & GC64_PTR_MASK;
		} else {
			if ((__u32)(tv >> 32) == ~0u)
				break;
			if ((__u32)(tv >> 32) == ITYPE_STR)
				top = tv & 0xffffffffull;
		}
	}
	return top;
}

static __always_inline __u64 zone_top(const struct vm_slot *v)
{
	return zone_top_of(v->zone_tab, v->off.tab_array, v->off.tab_asize, v->off.gc64);
}

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
			__u32 tf = vmstate >= 1 ? trace_frames_now(vmstate, r->ip, r->sp) : 0;

			bump(cb, CNT_BASE_JIT);
			/* The frames the trace inlined, then the root's PC. */
			if (tf & 0x7fffffff)
				bump(cb, CNT_TRACE_INLINE);
			if (wc->pc)
				bump(cb, CNT_TRACE_PC);
			if (tf >> 31)
				bump(cb, CNT_TRACE_RETADDR);
		}
	}
	if (!base && vmstate == VMSTATE_INTERP && r->ip >= vm->vm_lo && r->ip < vm->vm_hi) {
		base = interp_base(vm, stack, wc->stack_end, r, &wc->pc);
		if (base)
			bump(cb, CNT_BASE_REGS);
		/* PC holding a C-type link (low bits set): a frame being
		 * entered from C, whose link slot may not be written yet. */
		if (base && (r->bx & FRAME_TYPE))
			wc->top_link = (__s64)(r->bx & (off->gc64 ? ~0ull : 0xffffffffull));
	}
	if (!base) {
		__u64 cf = field(lblk, L_BLOCK, off->L_cframe - off->L_base, 8) & ~3ull;
		__u64 l_base = field(lblk, L_BLOCK, 0, off->gc64 ? 8 : 4);
		int stale = 0;

		base = l_base;
		if (vmstate == VMSTATE_INTERP && (r->ip < vm->vm_lo || r->ip >= vm->vm_hi))
			base = c_callee_base(vm, stack, wc->stack_end, cf, l_base, r, &stale);
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

/* Walks the running thread, then each thread that resumed it while its
 * walk completes (walk_resumer); sets the stack's flags and counts.
 *
 * A global function: the verifier checks it, and the per-frame step it
 * loops over, once on its own, instead of once more in every program that
 * samples and on every path leading there (on_switch reached its limit of
 * a million instructions).  Global functions take scalars only, so it
 * finds the walk's state where walk_sample left it: this CPU's scratch. */
__noinline int walk_threads(__u32 unused)
{
	struct counter_block *cb;
	struct walk_ctx *wc;
	struct walk_ref ref;
	struct scratch *sc;
	__u32 zero = 0;

	sc = bpf_map_lookup_elem(&scratch, &zero);
	cb = bpf_map_lookup_elem(&counters, &zero);
	if (!sc)
		return 0;
	wc = &sc->walk;
	ref.c = wc;
	ref.win = &sc->win;
	ref.st = &sc->st;
	for (__u32 t = 0; t < LBP_MAX_THREADS; t++) {
		bpf_loop(2 * LBP_MAX_FRAMES, walk_step, &ref, 0);
		if (t == 0)
			sc->st.nown = wc->n;
		/* Only a complete walk continues in the resumer. */
		if (wc->flags || wc->frame > wc->bottom || !walk_resumer(&ref, sc->tr.t))
			break;
		sc->st.nthreads = t + 1;
		bump(cb, CNT_STITCHED);
	}
	/* Out of iterations (many vararg frames) with frames left: truncated. */
	if (!(wc->flags & (STACK_BAD_FRAME | STACK_READ_FAULT)) &&
	    wc->frame > wc->bottom && wc->frame < wc->stack_end)
		wc->flags |= STACK_TRUNCATED;
	if (wc->flags & STACK_TRUNCATED)
		bump(cb, CNT_TRUNCATED);
	if (wc->flags & STACK_BAD_FRAME)
		bump(cb, CNT_BAD_FRAME);
	if (wc->flags & STACK_READ_FAULT)
		bump(cb, CNT_READ_FAULT);
	return 0;
}

/* The VM whose dispatch table (g + g2disp) r14 points at, LBP_MAX_VMS when
 * none.  x64 keeps DISPATCH in r14: the interpreter throughout
 * (src/vm_x64.dasc, vm_x86.dasc), GC64 traces too (src/lj_target_x86.h
 * RSET_GPR leaves it out), and the C code they call leaves it there, as C
 * code preserves r14. */
static __always_inline __u32 vm_by_dispatch(const struct proc_info *pi, __u64 r14)
{
	for (__u32 i = 0; i < LBP_MAX_VMS; i++) {
		if (i >= pi->nvms)
			break;
		if (pi->vm[i].off.g2disp && r14 == pi->vm[i].g + pi->vm[i].off.g2disp)
			return i;
	}
	return LBP_MAX_VMS;
}

/* Reads the current thread's Lua stack as it is at user registers r into
 * the stacks map and fills key's class (vmstate, zone, flags, stack_id).
 * Shared by the cpu-clock sampler and the off-CPU program (offcpu.bpf.h).
 * Returns 0 when key is ready to count, nonzero to drop the event. */
static __always_inline int walk_sample(struct scratch *sc, struct proc_info *pi,
				       const struct uregs *r, struct sample_key *key,
				       struct counter_block *cb)
{
	__u64 L = 0, best = ~0ull, stack, base = 0, dist = 0;
	__u32 stacksize, chosen = 0, last = LBP_MAX_VMS, tried = LBP_MAX_VMS, i;
	const struct vm_slot *vm = NULL;
	const struct lj_offsets *off;
	struct walk_ref ref;
	struct walk_ctx *wc;
	const __u8 *lblk;
	__s32 vmstate;

	wc = &sc->walk;
	__builtin_memset(wc, 0, sizeof(*wc));

	/* The VM the registers name, checked like any other: its reads only. */
	i = vm_by_dispatch(pi, r->r14);
	if (i < LBP_MAX_VMS && !read_g_block(sc->g, &pi->vm[i])) {
		last = tried = i;
		L = active_state(&pi->vm[i], sc->g, sc->l[i], r->sp, &dist);
		if (L) {
			vm = &pi->vm[i];
			chosen = i;
			bump(cb, CNT_VM_DISPATCH);
		}
	}
	/* Else each other VM's state (the one tried runs no Lua on this
	 * thread): the one whose innermost activation lies nearest above sp
	 * runs on this thread. */
	for (i = 0; i < LBP_MAX_VMS && !vm; i++) {
		__u64 l;

		if (i >= pi->nvms)
			break;
		if (i == tried || read_g_block(sc->g, &pi->vm[i]))
			continue;
		last = i;
		l = active_state(&pi->vm[i], sc->g, sc->l[i], r->sp, &dist);
		if (l && dist < best) {
			best = dist;
			L = l;
			chosen = i;
		}
	}
	if (!vm && L)
		vm = &pi->vm[chosen & (LBP_MAX_VMS - 1)];
	if (!pi->nvms)
		bump(cb, CNT_NO_VM);
	if (!vm) {
		bump(cb, CNT_HOST);
		key->flags |= SAMPLE_HOST;
		return 0;
	}
	off = &vm->off;
	/* sc->g holds the last VM read; reread when another one was chosen. */
	if (chosen != last && read_g_block(sc->g, vm))
		return 1;
	lblk = sc->l[chosen & (LBP_MAX_VMS - 1)];

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

	/* Inlined frames of a trace are recorded here, before the walk. */
	base = frame_base(vm, sc, &ref, lblk, vmstate, stack, r, cb);
	/* No base: no frames, flagged, rather than a walk from a stale one. */
	wc->frame = base ? base - 8 : 0;
	if (!base)
		wc->flags |= STACK_NO_BASE;
	wc->mainth = g_field(off, sc->g, off->g_mainthref, off->gc64 ? 8 : 4);
	wc->cframe = field(lblk, L_BLOCK, off->L_cframe - off->L_base, 8) & CFRAME_RAWMASK;
	wc->cframe_top = wc->cframe;
	walk_threads(0);
	if (cb && wc->proto_lost)
		cb->n[CNT_PROTO_LOST] += wc->proto_lost;
	if (cb)
		cb->n[CNT_WALK_CACHED] += wc->cache_hits;

	sc->st.g = vm->g;
	sc->st.nframes = wc->n;
	sc->st.flags = wc->flags;
	key->stack_id = mix_hash(mix_hash(wc->hash, wc->n ^ ((__u64)wc->flags << 32)),
				 sc->st.nown) | 1;
	/* Most samples repeat a known stack: look up before inserting. */
	if (!bpf_map_lookup_elem(&stacks, &key->stack_id) &&
	    bpf_map_update_elem(&stacks, &key->stack_id, &sc->st, BPF_NOEXIST) &&
	    !bpf_map_lookup_elem(&stacks, &key->stack_id)) {
		bump(cb, CNT_STACK_MAP_FULL);
		key->stack_id = 0;
		key->flags |= SAMPLE_NO_STACK;
	}
	return 0;
}

/* Walks the current thread (id: pid_tgid) of traced process pi at
 * registers r and counts weight samples of it: the cpu-clock sampler
 * (weight 1) and the allocation probe (one per interval of bytes crossed,
 * alloc.bpf.h). */
static __always_inline int sample_and_count(struct proc_info *pi, __u64 id,
					    const struct uregs *r, __u64 weight,
					    struct bpf_perf_event_data *ctx)
{
	struct sample_key key = { .pid = id >> 32, .tid = (__u32)id };
	struct counter_block *cb;
	struct scratch *sc;
	__u32 zero = 0;

	cb = bpf_map_lookup_elem(&counters, &zero);
	sc = bpf_map_lookup_elem(&scratch, &zero);
	if (!sc)
		return 0;
	bump(cb, CNT_SAMPLES);
	if (walk_sample(sc, pi, r, &key, cb))
		return 0;
	/* --native: the sample goes to user space with its native stack
	 * instead (native.bpf.h); a full ring keeps it here, Lua frames only. */
	if (native_stack && ctx) {
		if (native_send(ctx, &key, sc->walk.cframe_top,
				sc->st.nthreads ? sc->walk.cframe : 0))
			return 0;
		bump(cb, CNT_NATIVE_LOST);
	}
	count_sample(&key, cb, weight);
	return 0;
}

SEC("perf_event")
int on_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32;
	struct proc_info *pi;
	struct uregs r;

	pi = bpf_map_lookup_elem(&procs, &tgid);
	if (!pi)
		return 0;	/* the cheap early exit for every other process */
	get_uregs(ctx, &r);
	return sample_and_count(pi, id, &r, 1, ctx);
}

#include "offcpu.bpf.h"
#include "alloc.bpf.h"

char LICENSE[] SEC("license") = "GPL";
