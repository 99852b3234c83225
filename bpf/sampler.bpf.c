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

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CNT__MAX);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

/* The stack being built: too large for the BPF stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct stack_trace);
} scratch SEC(".maps");

static __always_inline void bump(__u32 counter)
{
	__u64 *v = bpf_map_lookup_elem(&counters, &counter);

	if (v)
		(*v)++;
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
	__u64 ip, sp, dx, bx;
};

static __always_inline void get_uregs(struct bpf_perf_event_data *ctx, struct uregs *r)
{
	/* User mode iff the IP is a user-space address (below the canonical
	 * hole); reading cs would need its exact width in this kernel. */
	if (ctx->regs.ip < USER_ADDR_END) {
		r->ip = ctx->regs.ip;
		r->sp = ctx->regs.sp;
		r->dx = ctx->regs.dx;
		r->bx = ctx->regs.bx;
	} else {
		struct pt_regs *regs;

		regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
		r->ip = BPF_CORE_READ(regs, ip);
		r->sp = BPF_CORE_READ(regs, sp);
		/* BASE/PC are only trusted for IPs inside the interpreter,
		 * which a syscall never is. */
		r->dx = 0;
		r->bx = 0;
	}
}

/* The lua_State running Lua on this thread for VM v, or 0.  Returns the
 * distance of its C frame above sp through *dist. */
static __always_inline __u64 active_state(const struct vm_slot *v, __u64 sp, __u64 *dist)
{
	__u64 L = read_ref(&v->off, v->g + v->off.g_cur_L);
	__u64 cf = L ? read_u64(L + v->off.L_cframe) & ~3ull : 0;

	if (!cf) {
		/* A C function that resumed a coroutine leaves cur_L on the
		 * suspended coroutine until it returns: try the main thread. */
		L = read_ref(&v->off, v->g + v->off.g_mainthref);
		cf = L ? read_u64(L + v->off.L_cframe) & ~3ull : 0;
	}
	if (!cf || cf < sp || cf - sp >= cframe_max_dist)
		return 0;
	*dist = cf - sp;
	return L;
}

/* Frame base from the interpreter's BASE (rdx) and PC (rbx) registers, when
 * they validate against the Lua stack and the function's bytecode. */
static __always_inline __u64 interp_base(const struct lj_offsets *off, __u64 stack,
					 __u64 stack_end, const struct uregs *r, __u64 *pc)
{
	__u64 base = r->dx, ftv, fn, bc;
	__u8 ffid = 0xff;
	__u32 sizebc = 0;

	if (base <= stack || base > stack_end || (base & 7))
		return 0;
	if (off->gc64) {
		ftv = read_u64(base - 16);
		if ((__u32)((__s64)ftv >> 47) != GC64_ITYPE_FUNC)
			return 0;
		fn = ftv & GC64_PTR_MASK;
	} else {
		fn = read_u64(base - 8) & 0xffffffffull;
	}
	if (!fn || bpf_probe_read_user(&ffid, 1, (void *)(fn + off->fn_ffid)))
		return 0;
	*pc = 0;
	if (ffid != 0)
		return base;	/* a fast function running in the VM: no PC */
	bc = read_ref(off, fn + off->fn_pc);
	if (!bc || bpf_probe_read_user(&sizebc, 4,
				       (void *)(bc - off->sizeof_proto + off->pt_sizebc)))
		return 0;
	if (r->bx > bc && r->bx <= bc + 4ull * sizebc)
		*pc = r->bx;
	return base;
}

/* PC of the top frame of trace `traceno` at ip, from the snapshot covering
 * ip (what lj_trace_unwind does), or 0. */
static __always_inline __u64 trace_pc(const struct vm_slot *v, __s32 traceno, __u64 ip)
{
	const struct lj_offsets *off = &v->off;
	__u64 traces, T, mcode, snap, snapmap, pc = 0;
	__u32 sizetrace = 0, szmcode = 0, mapofs = 0, lo, hi, ofs;
	__u16 nsnap = 0, mcofs;
	__u8 nent = 0;

	traces = read_u64(v->g + off->g_trace);	/* a C pointer in every build */
	bpf_probe_read_user(&sizetrace, 4, (void *)(v->g + off->g_sizetrace));
	if (!traces || traceno <= 0 || (__u32)traceno >= sizetrace)
		return 0;
	T = read_ref(off, traces + (__u64)traceno * (off->gc64 ? 8 : 4));
	if (!T)
		return 0;
	mcode = read_u64(T + off->tr_mcode);
	bpf_probe_read_user(&szmcode, 4, (void *)(T + off->tr_szmcode));
	if (ip < mcode || ip >= mcode + szmcode)
		return 0;	/* in a helper called from the trace */
	ofs = ip - mcode;
	bpf_probe_read_user(&nsnap, 2, (void *)(T + off->tr_nsnap));
	snap = read_u64(T + off->tr_snap);
	snapmap = read_u64(T + off->tr_snapmap);
	if (!nsnap || !snap || !snapmap)
		return 0;
	/* Rightmost snapshot whose machine-code offset is <= ofs. */
	lo = 0;
	hi = nsnap;
	for (int i = 0; i < 16 && hi - lo > 1; i++) {
		__u32 mid = (lo + hi) / 2;

		mcofs = 0xffff;
		bpf_probe_read_user(&mcofs, 2, (void *)(snap + 12ull * mid + 6));
		if (mcofs <= ofs)
			lo = mid;
		else
			hi = mid;
	}
	bpf_probe_read_user(&mapofs, 4, (void *)(snap + 12ull * lo));
	bpf_probe_read_user(&nent, 1, (void *)(snap + 12ull * lo + 10));
	if (off->gc64)
		pc = read_u64(snapmap + 4ull * (mapofs + nent)) >> 8;
	else
		bpf_probe_read_user(&pc, 4, (void *)(snapmap + 4ull * (mapofs + nent)));
	/* A snapshot PC is the instruction to resume at; frame PCs point
	 * just after the current instruction. */
	return pc ? pc + 4 : 0;
}

/* The GCstr on top of the jit.zone stack (the module table's array part). */
static __always_inline __u64 zone_top(const struct vm_slot *v)
{
	const struct lj_offsets *off = &v->off;
	__u64 slots[LBP_MAX_ZONE], array, top = 0;
	__u32 asize = 0, n;

	if (!v->zone_tab)
		return 0;
	array = read_ref(off, v->zone_tab + off->tab_array);
	bpf_probe_read_user(&asize, 4, (void *)(v->zone_tab + off->tab_asize));
	if (!array || asize < 2)
		return 0;
	n = asize < LBP_MAX_ZONE ? asize : LBP_MAX_ZONE;
	if (bpf_probe_read_user(slots, sizeof(slots), (void *)array))
		return 0;
	for (__u32 i = 1; i < LBP_MAX_ZONE; i++) {
		__u64 tv = slots[i];

		if (i >= n)
			break;
		if (off->gc64) {
			if (tv == ~0ull)	/* nil */
				break;
			if ((__u32)((__s64)tv >> 47) == 0xfffffffbu)	/* string */
				top = tv & GC64_PTR_MASK;
		} else {
			if ((__u32)(tv >> 32) == ~0u)
				break;
			if ((__u32)(tv >> 32) == 0xfffffffbu)
				top = tv & 0xffffffffull;
		}
	}
	return top;
}

static __always_inline void count_sample(struct sample_key *key)
{
	__u64 one = 1, *n;

	n = bpf_map_lookup_elem(&counts, key);
	if (n) {
		__sync_fetch_and_add(n, 1);
		return;
	}
	if (bpf_map_update_elem(&counts, key, &one, BPF_NOEXIST)) {
		n = bpf_map_lookup_elem(&counts, key);
		if (n)
			__sync_fetch_and_add(n, 1);
		else
			bump(CNT_COUNT_MAP_FULL);
	}
}

SEC("perf_event")
int on_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), L = 0, best = ~0ull, stack, base = 0;
	__u32 tgid = id >> 32, zero = 0, stacksize = 0;
	struct sample_key key = { .pid = tgid, .tid = (__u32)id };
	const struct vm_slot *vm = NULL;
	struct proc_info *pi;
	struct stack_trace *st;
	struct walk_ctx wc = {};
	struct uregs r;
	__s32 vmstate = 0;

	pi = bpf_map_lookup_elem(&procs, &tgid);
	if (!pi)
		return 0;	/* the cheap early exit for every other process */
	bump(CNT_SAMPLES);
	get_uregs(ctx, &r);

	for (int i = 0; i < LBP_MAX_VMS; i++) {
		__u64 dist = 0, l;

		if (i >= pi->nvms)
			break;
		l = active_state(&pi->vm[i], r.sp, &dist);
		if (l && dist < best) {
			best = dist;
			L = l;
			vm = &pi->vm[i];
		}
	}
	if (!pi->nvms)
		bump(CNT_NO_VM);
	if (!vm) {
		bump(CNT_HOST);
		key.flags = SAMPLE_HOST;
		count_sample(&key);
		return 0;
	}

	bpf_probe_read_user(&vmstate, 4, (void *)(vm->g + vm->off.g_vmstate));
	key.vmstate = vmstate;
	key.zone = zone_top(vm);

	stack = read_ref(&vm->off, L + vm->off.L_stack);
	bpf_probe_read_user(&stacksize, 4, (void *)(L + vm->off.L_stacksize));
	wc.off = vm->off;
	wc.L = L;
	wc.bottom = stack + 8 * vm->off.gc64;
	wc.stack_end = stack + 8ull * stacksize;

	if (vmstate != VMSTATE_INTERP) {
		/* jit_base is non-zero only while a trace runs, including the C
		 * calls it makes (which may switch vmstate to C while L->base
		 * still names an older frame). */
		base = read_ref(&vm->off, vm->g + vm->off.g_jit_base);
		if (base) {
			bump(CNT_BASE_JIT);
			if (vmstate >= 1)
				wc.pc = trace_pc(vm, vmstate, r.ip);
			if (wc.pc)
				bump(CNT_TRACE_PC);
		}
	}
	if (!base && vmstate == VMSTATE_INTERP && r.ip >= vm->vm_lo && r.ip < vm->vm_hi) {
		base = interp_base(&vm->off, stack, wc.stack_end, &r, &wc.pc);
		if (base)
			bump(CNT_BASE_REGS);
	}
	if (!base) {
		base = read_u64(L + vm->off.L_base);
		bump(CNT_BASE_L);
		/* SAVE_PC in the VM's C frame is the top Lua frame's PC when the
		 * VM called out (C function, GC, helpers); validated later. */
		wc.pc = read_ref(&vm->off, (read_u64(L + vm->off.L_cframe) & ~3ull) +
				 vm->off.cframe_pc);
	}

	st = bpf_map_lookup_elem(&scratch, &zero);
	if (!st)
		return 0;
	wc.st = st;
	wc.frame = base - 8;
	wc.hash = mix_hash(0x5bd1e995, vm->g);
	wc.max = walk_max_frames < LBP_MAX_FRAMES ? walk_max_frames : LBP_MAX_FRAMES;
	bpf_loop(2 * LBP_MAX_FRAMES, walk_step, &wc, 0);
	/* Out of iterations (many vararg frames) with frames left: truncated. */
	if (!(wc.flags & (STACK_BAD_FRAME | STACK_READ_FAULT)) &&
	    wc.frame > wc.bottom && wc.frame < wc.stack_end)
		wc.flags |= STACK_TRUNCATED;
	if (wc.flags & STACK_TRUNCATED)
		bump(CNT_TRUNCATED);
	if (wc.flags & STACK_BAD_FRAME)
		bump(CNT_BAD_FRAME);
	if (wc.flags & STACK_READ_FAULT)
		bump(CNT_READ_FAULT);

	st->g = vm->g;
	st->nframes = wc.n;
	st->flags = wc.flags;
	key.stack_id = mix_hash(wc.hash, wc.n ^ ((__u64)wc.flags << 32)) | 1;
	if (bpf_map_update_elem(&stacks, &key.stack_id, st, BPF_NOEXIST) &&
	    !bpf_map_lookup_elem(&stacks, &key.stack_id)) {
		bump(CNT_STACK_MAP_FULL);
		key.stack_id = 0;
		key.flags |= SAMPLE_NO_STACK;
	}
	count_sample(&key);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
