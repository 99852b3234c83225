/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The walk's steps, each a global function that the verifier checks once
 * on its own and that finds the walk's state in this CPU's scratch: a
 * frame (walk_frame), a trace's snapshot entry and inlined frame, the
 * trace lookup, and the whole walk of the threads.
 */
#ifndef LBP_STEPS_BPF_H
#define LBP_STEPS_BPF_H

#include "access.bpf.h"
#include "maps.bpf.h"

/* The walk's references into this CPU's scratch, NULL when it has none. */
static __always_inline struct scratch *scratch_ref(struct walk_ref *ref)
{
	__u32 zero = 0;
	struct scratch *sc = bpf_map_lookup_elem(&scratch, &zero);

	if (sc) {
		ref->c = &sc->walk;
		ref->win = &sc->win;
		ref->st = &sc->st;
	}
	return sc;
}

/* One frame of the walk (walk.bpf.h walk_step): 1 when the thread's walk
 * is over.  A global function, verified once on its own; its callers
 * loop over it, which costs the verifier a few instructions per
 * iteration and needs no bpf_loop (5.17), nor its callback verification,
 * which grew with the verifier's releases until 6.12 and 7.x ran out of
 * instructions. */
__noinline int walk_frame(void)
{
	struct walk_ref ref;

	if (!scratch_ref(&ref))
		return 1;
	return walk_step(&ref);
}

/* trace.bpf.h's loops, one step each. */
__noinline int trace_scan_entry(__u32 i)
{
	struct walk_ref ref;
	struct scratch *sc = scratch_ref(&ref);

	if (!sc)
		return 1;
	return scan_entry(i, &sc->tr);
}

__noinline int trace_record_inlined(__u32 k)
{
	struct walk_ref ref;
	struct scratch *sc = scratch_ref(&ref);

	if (!sc)
		return 1;
	return record_inlined(k, &ref, &sc->tr);
}

__noinline int trace_find_ip(__u32 i)
{
	struct walk_ref ref;
	struct scratch *sc = scratch_ref(&ref);

	if (!sc)
		return 1;
	return find_ip_step(i, &sc->tr, &sc->walk.off);
}

/* The trace whose machine code holds ip, or with ip 0, the trace the
 * nearest return address on the machine stack at sp leads into; 0 when
 * none (trace.bpf.h trace_find_ip).  For the GC called from a trace and
 * for code a trace jumped to without entering through its head. */
__noinline __s32 trace_search(__u64 ip, __u64 sp)
{
	struct walk_ref ref;
	struct scratch *sc = scratch_ref(&ref);
	struct tr_scratch *ts;
	const struct lj_offsets *off;

	if (!sc)
		return 0;
	ts = &sc->tr;
	off = &sc->walk.off;
	ts->traces = g_field(off, sc->g, off->g_trace, 8);
	ts->sizetrace = (__u32)g_field(off, sc->g, off->g_sizetrace, 4);
	if (!off->g_trace || !ts->traces)
		return 0;
	if (!ip && (!sp || bpf_probe_read_user(ts->ra, sizeof(ts->ra), (void *)sp)))
		return 0;
	ts->find_ip = ip;
	ts->found = 0;
	ts->best_ra = RA_SCAN;
	for (__u32 i = 1; i < TRACE_SEARCH; i++)
		if (trace_find_ip(i))
			break;
	return ts->found;
}

/* trace_frames (trace.bpf.h) for the walk this CPU's scratch holds (its
 * offsets and VM set): the count of inlined frames found (walk_threads
 * records them), bit 31 set when the trace was found through a return
 * address, bit 30 when ip is in none of its code nor a return address
 * into it. */
__noinline __u32 trace_frames_now(__s32 traceno, __u64 ip, __u64 sp)
{
	struct walk_ref ref;
	struct scratch *sc = scratch_ref(&ref);
	int by_ra = 0;
	__u32 n;

	if (!sc)
		return 0;
	n = trace_frames(&sc->tr, &ref, sc->g, traceno, ip, sp, &by_ra);
	return (n & 0x3fffffff) | (by_ra ? 1u << 31 : 0) | (sc->tr.missed ? 1u << 30 : 0);
}

/* Walks the running thread, then each thread that resumed it while its
 * walk completes (walk_resumer); sets the stack's flags and counts.
 *
 * A global function: the verifier checks it, and the per-frame step it
 * loops over, once on its own, instead of once more in every program that
 * samples and on every path leading there (on_switch reached its limit of
 * a million instructions).  Global functions take scalars only, so it
 * finds the walk's state where walk_sample left it: this CPU's scratch. */
__noinline int walk_threads(void)
{
	struct counter_block *cb;
	struct walk_ctx *wc;
	struct walk_ref ref;
	struct scratch *sc = scratch_ref(&ref);
	__u32 zero = 0;

	cb = bpf_map_lookup_elem(&counters, &zero);
	if (!sc)
		return 0;
	wc = &sc->walk;
	/* C code Lua called (FFI, libm) first: the sampled IP, named in
	 * user space. */
	if (sc->tr.leaf_ip || sc->tr.callee) {
		struct lua_frame *f = &sc->st.frames[0];

		f->id = sc->tr.callee ? sc->tr.callee | FRAME_CALLEE :
					sc->tr.leaf_ip & FRAME_ID_MASK & ~FRAME_CALLEE;
		f->id |= FRAME_KIND_NATIVE << FRAME_KIND_SHIFT;
		f->pc_off = 0;
		f->fp = 0;
		wc->hash = mix_hash(wc->hash, f->id);
		wc->n = 1;
		sc->tr.leaf_ip = 0;
		sc->tr.callee = 0;
	}
	/* A trace's inlined frames first, top first (trace.bpf.h). */
	if (sc->tr.pending) {
		__u64 root_pc = wc->pc;

		wc->pc = sc->tr.top_pc;
		for (__u32 k = 0; k < TR_MAX_INLINE; k++)
			if (trace_record_inlined(k))
				break;
		wc->pc = root_pc;
		sc->tr.pending = 0;
	}
	for (__u32 t = 0; t < LBP_MAX_THREADS; t++) {
		for (__u32 i = 0; i < 2 * LBP_MAX_FRAMES; i++)
			if (walk_frame())
				break;
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

#endif
