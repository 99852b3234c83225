/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Samples that land in a trace: the snapshot covering the machine code
 * address gives the PC being executed and the Lua frames the trace inlined
 * there, which exist nowhere else while the trace runs.
 *
 * This rebuilds what the VM's exit handler restores (src/lj_snap.c
 * lj_snap_restore): the frames above g->jit_base, each with its function
 * (an IR_KGC constant of the trace) and the PC it is at (the snapshot PC
 * for the top one, the frame link of the frame above for the others).
 * The inlined frames are recorded top first, through the walker's record()
 * (same prototype resolution and fingerprint as every Lua frame), before
 * the walker goes on from jit_base with the root frame's PC.
 */
#ifndef LBP_TRACE_BPF_H
#define LBP_TRACE_BPF_H

#include "access.bpf.h"
#include "regs.bpf.h"
#include "walk.bpf.h"

/* struct SnapShot (src/lj_jit.h) is 12 bytes in every supported variant,
 * mapofs u32 at 0; where mcofs and nent sit is in the layout (forks from
 * before 2020, Tarantool's, have no mcofs). */
#define SNAP_SIZE	12
#define SNAP_INLINE	16	/* snapshots searched in one read */

/* SnapEntry: slot << 24 | flags | IRRef (src/lj_jit.h). */
#define SNAPE_FRAME	0x010000u
#define SNAPE_CONT	0x020000u
#define IR_SIZE		8	/* sizeof(IRIns) */
#define IR_O		5	/* IRIns.o: the opcode byte */
#define IR_OP_KGC	24	/* IR_KGC in src/lj_ir.h IRDEF */
#define REF_BIAS	0x8000	/* refs below are constants */

#define T_BLOCK		96	/* GCtrace up to mcode */
#define SMAP_MAX	512	/* snapshot entries read: nent <= 255, + links */
#define TR_MAX_INLINE	16	/* inlined frames rebuilt per sample */
#define RA_SCAN		64	/* machine stack words searched for a return address */
#define TRACE_SEARCH	256	/* traces searched for the code the IP is in */

struct tr_scratch {
	__u8 t[T_BLOCK];
	__u8 snaps[SNAP_INLINE * SNAP_SIZE];
	__u32 map[SMAP_MAX];		/* the snapshot's entries, then its links */
	__u64 ra[RA_SCAN];
	/* What the entry scan found, bottom (root side) first. */
	__u64 fn[TR_MAX_INLINE];	/* GCfunc of each inlined frame */
	__u64 caller_pc[TR_MAX_INLINE];	/* PC of the frame below it, or 0 */
	__u64 ir;			/* T->ir */
	__u64 cont_pc;			/* last continuation's caller PC */
	__u64 root_fn;			/* the root's function when replaced, or 0 */
	__u32 nent, nlinks, linkno;	/* non-GC64: frame links consumed so far */
	__u32 prev_sn;			/* the entry before (GC64: the function slot) */
	__u32 nf;
	__u32 gc64;
	__u32 pending;			/* inlined frames the walk is to record first */
	__u64 top_pc;			/* the top one's PC */
	__u64 leaf_ip;			/* C code called from Lua: the walk's first frame */
	__u64 callee;			/* or the C function an FFI call calls (FRAME_CALLEE) */
	/* The sampled IP in no code of the vmstate's trace, nor a return
	 * address into it: the trace whose code holds it (trace_find_ip). */
	__u64 traces, find_ip;
	__u32 sizetrace, missed;
	__s32 found;
	__u32 best_ra;			/* index in ra[] of the nearest one found */
};

/* The 64-bit payload of constant `ref` (the IRIns after it, src/lj_ir.h
 * ir_k64), or of a GC64 KGC constant; 0 when unreadable. */
static __always_inline __u64 ir_k64(const struct tr_scratch *ts, __u32 ref)
{
	__u64 v = 0;

	bpf_probe_read_user(&v, 8, (void *)(ts->ir + IR_SIZE * ((__u64)ref + 1)));
	return v;
}

/* The GCobj of constant `ref` when it is an IR_KGC, else 0.  GC64 keeps
 * the pointer in the IRIns after it (ir_k64): both come in one read. */
static __always_inline __u64 ir_kgc(const struct tr_scratch *ts, __u32 ref)
{
	__u8 ins[2 * IR_SIZE] = {};
	__u64 gcr = 0;
	__u32 lo;

	if (ref >= REF_BIAS)
		return 0;	/* not a constant: a closure known only at run time */
	if (bpf_probe_read_user(ins, ts->gc64 ? 2 * IR_SIZE : IR_SIZE,
				(void *)(ts->ir + IR_SIZE * (__u64)ref)))
		return 0;
	if (ins[IR_O] != IR_OP_KGC)
		return 0;
	if (ts->gc64) {
		__builtin_memcpy(&gcr, ins + IR_SIZE, 8);
		return gcr;
	}
	__builtin_memcpy(&lo, ins, 4);	/* gcr overlaps op12 */
	return lo;
}

/* The frame link of a frame entry: GC64 keeps it as a KNUM constant in
 * the link slot's entry; non-GC64 keeps one link per frame or
 * continuation entry after the current PC, consumed from the end as the
 * slots go up (lj_snap_restore's flinks). */
static __always_inline __u64 entry_link(struct tr_scratch *ts, __u32 sn)
{
	__u32 at;

	if (ts->gc64)
		return ir_k64(ts, sn & 0xffff);
	at = ts->nent + ts->nlinks - ts->linkno++;
	if (ts->linkno > ts->nlinks || at >= SMAP_MAX)
		return 0;
	return ts->map[at & (SMAP_MAX - 1)];
}

/* Global functions (sampler.bpf.c), each verified once on its own rather
 * than once per iteration: snapshot entry i scanned, inlined frame k
 * recorded.  They find the walk where trace_frames leaves it, in this
 * CPU's scratch, and return 1 when the loop is over. */
__noinline int trace_scan_entry(__u32 i);
__noinline int trace_record_inlined(__u32 k);

static __always_inline int scan_entry(__u32 i, struct tr_scratch *ts)
{
	__u32 sn, slot, prev;
	__u64 fn, link;

	if (i >= ts->nent)
		return 1;
	/* A mask the verifier sees (a bound check is optimised into i's
	 * 32-bit range, which it does not trust). */
	asm volatile("" : "+r"(i));
	sn = ts->map[i & (SMAP_MAX - 1)];
	prev = ts->prev_sn;
	ts->prev_sn = sn;
	slot = sn >> 24;
	if (slot == 0) {
		/* The root's function slot: snapshotted when a tail call in
		 * the trace replaced it (the stack still holds the old one). */
		ts->root_fn = ir_kgc(ts, sn & 0xffff);
		return 0;
	}
	if (!(sn & (SNAPE_FRAME | SNAPE_CONT)) || slot < 1 + ts->gc64)
		return 0;	/* a value, or the root's own link */
	link = entry_link(ts, sn);
	if (sn & SNAPE_CONT) {
		/* The continuation slot: the PC of the Lua code that called
		 * the metamethod framed above it. */
		ts->cont_pc = link;
		return 0;
	}
	if ((link & FRAME_TYPEP) == FRAME_VARG)
		return 0;	/* upper copy of a vararg frame: not a level */
	if (ts->gc64)
		fn = (prev >> 24) == slot - 1 ? ir_kgc(ts, prev & 0xffff) : 0;
	else
		fn = ir_kgc(ts, sn & 0xffff);
	if (!fn || ts->nf >= TR_MAX_INLINE)
		return 0;
	ts->fn[ts->nf & (TR_MAX_INLINE - 1)] = fn;
	if ((link & FRAME_TYPE) == FRAME_LUA)
		ts->caller_pc[ts->nf & (TR_MAX_INLINE - 1)] = link;
	else if ((link & FRAME_TYPEP) == FRAME_CONT)
		ts->caller_pc[ts->nf & (TR_MAX_INLINE - 1)] = ts->cont_pc;
	else
		ts->caller_pc[ts->nf & (TR_MAX_INLINE - 1)] = 0;
	ts->nf++;
	return 0;
}

/* Records inlined frame k from the top. */
static __always_inline int record_inlined(__u32 k, struct walk_ref *ref, struct tr_scratch *ts)
{
	__u32 i;

	if (k >= ts->nf)
		return 1;
	i = (ts->nf - 1 - k) & (TR_MAX_INLINE - 1);
	if (record(ref, ts->fn[i]))
		return 1;
	ref->c->pc = ts->caller_pc[i];
	return 0;
}

/* Where in trace T's machine code the thread is: ip itself, or, in a
 * helper or C function the trace called (libm, FFI), the nearest return
 * address into the trace on the machine stack.  0 when neither. */
static __always_inline __u32 trace_mc_offset(struct tr_scratch *ts, __u64 mcode,
					     __u32 szmcode, __u64 ip, __u64 sp, int *by_ra)
{
	*by_ra = 0;
	if (ip >= mcode && ip < mcode + szmcode)
		return (__u32)(ip - mcode);
	if (!sp || bpf_probe_read_user(ts->ra, sizeof(ts->ra), (void *)sp))
		return 0;
	for (__u32 i = 0; i < RA_SCAN; i++) {
		__u64 a = ts->ra[i];

		if (a > mcode && a < mcode + szmcode) {
			*by_ra = 1;
			/* The call instruction, not the one after it. */
			return (__u32)(a - 1 - mcode);
		}
	}
	return 0;
}

/* The C function an FFI call of the interpreter is in: the frame's first
 * slot holds the cdata called (ffi.meta.__call's self), whose payload is
 * the function's address (src/lj_clib.c clib_index: CTSIZE_PTR bytes
 * after the GCcdata header, 16 bytes GC64, 8 otherwise).  0 when the slot
 * holds no cdata; user space uses it only under an FFI call's frame. */
static __always_inline __u64 ffi_callee(__u32 gc64, __u64 base)
{
	__u64 slot = 0, cd, fn = 0;

	if (!base || bpf_probe_read_user(&slot, 8, (void *)base))
		return 0;
	if (gc64) {
		if (gc64_itype(slot) != LJ_TCDATA)
			return 0;
		cd = slot & LJ_GCVMASK;
	} else {
		if ((__u32)(slot >> 32) != LJ_TCDATA)
			return 0;
		cd = slot & 0xffffffffull;
	}
	if (bpf_probe_read_user(&fn, 8, (void *)(cd + (gc64 ? 16 : 8))))
		return 0;
	return fn & FRAME_ID_MASK & ~FRAME_CALLEE;
}

/* Whether snapshot idx + 1 is the one taken just after a call whose
 * return address is at machine code offset ra: LuaJIT snapshots the
 * state after every call with side effects (FFI functions, lj_ir.c
 * lj_ir_call), and that state's code begins right after the call, past
 * the moves of its result.  The snapshot before the call holds the
 * frames of whatever ran before it (another inlined function), the one
 * after it the caller at the call (or, after a tail call, its caller at
 * that call's line).  A helper with no snapshot of its own (lj_tab_new)
 * keeps the snapshot before it. */
#define POSTCALL_GAP	32	/* bytes of result moves between the two */
static __always_inline __u32 snap_after_call(__u64 snap, __u16 nsnap, __u32 idx, __u32 ra,
					     __u8 mcofs_at)
{
	__u16 next = 0;

	if (idx + 1 >= nsnap ||
	    bpf_probe_read_user(&next, 2, (void *)(snap + SNAP_SIZE * (__u64)(idx + 1) + mcofs_at)))
		return 0;
	return next >= ra && next - ra <= (POSTCALL_GAP >> MCODE_UNIT_SHIFT);
}

/* Index of the snapshot covering machine code offset ofs: the rightmost
 * one whose mcofs is <= ofs (src/lj_trace.c lj_trace_unwind). */
static __always_inline __u32 snap_covering(struct tr_scratch *ts, __u64 snap, __u16 nsnap,
					   __u32 ofs, __u8 mcofs_at)
{
	__u32 lo = 0, hi = nsnap;
	__u16 mcofs = 0;

	if (nsnap <= SNAP_INLINE) {
		if (bpf_probe_read_user(ts->snaps, (nsnap * SNAP_SIZE) & 0xff, (void *)snap))
			return 0;
		for (__u32 i = 1; i < SNAP_INLINE; i++) {
			__u32 at = (i * SNAP_SIZE) & 0xff;

			if (i >= nsnap || at > sizeof(ts->snaps) - SNAP_SIZE)
				break;
			__builtin_memcpy(&mcofs, ts->snaps + at + (mcofs_at & 7), 2);
			if (mcofs > ofs)
				break;
			lo = i;
		}
		return lo;
	}
	for (int i = 0; i < 16 && hi - lo > 1; i++) {
		__u32 mid = (lo + hi) / 2;

		mcofs = 0xffff;
		bpf_probe_read_user(&mcofs, 2, (void *)(snap + SNAP_SIZE * (__u64)mid + mcofs_at));
		if (mcofs <= ofs)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Reads snapshot idx's entries and links into ts->map (its part of the
 * snapmap ends where the next snapshot's starts, src/lj_snap.c
 * snap_nextofs); returns the top PC (the instruction to resume at) or 0. */
static __always_inline __u64 snap_read(struct tr_scratch *ts, __u64 snap, __u64 snapmap,
				       __u32 nsnapmap, __u32 idx, __u16 nsnap, __u8 nent_at)
{
	__u32 mapofs = 0, nextofs = nsnapmap, n;
	__u64 pc = 0;

	if (bpf_probe_read_user(ts->snaps, idx + 1 < nsnap ? 2 * SNAP_SIZE : SNAP_SIZE,
				(void *)(snap + SNAP_SIZE * (__u64)idx)))
		return 0;
	__builtin_memcpy(&mapofs, ts->snaps, 4);
	if (idx + 1 < nsnap)
		__builtin_memcpy(&nextofs, ts->snaps + SNAP_SIZE, 4);
	ts->nent = ts->snaps[nent_at & 15];	/* nent_at < SNAP_SIZE, checked */
	if (nextofs > nsnapmap || mapofs >= nextofs)
		return 0;
	n = nextofs - mapofs;
	if (ts->nent + 1 + ts->gc64 > n || n >= SMAP_MAX)
		return 0;
	/* Non-GC64: the PC, then one link per frame entry above slot 0. */
	ts->nlinks = n - ts->nent - 1;
	if (bpf_probe_read_user(ts->map, (n * 4) & 0x7ff, (void *)(snapmap + 4ull * mapofs)))
		return 0;
	if (ts->gc64) {
		__u32 at = ts->nent & 0xff;

		pc = ((__u64)ts->map[at + 1] << 32 | ts->map[at]) >> 8;
	} else {
		pc = ts->map[ts->nent & 0xff];
	}
	return pc;
}

/* Step i of the search for the trace whose machine code holds
 * ts->find_ip, or without one, the nearest return address in ts->ra (a
 * GC step a trace called: vmstate says GC then): 1 when the search is
 * over; ts->found is the trace found.
 * vmstate names the trace last entered through its head: code it jumps
 * to without one (a side trace's link back to its root, its exit stubs'
 * targets) runs under that number. */
__noinline int trace_find_ip(__u32 i);

static __always_inline int find_ip_step(__u32 i, struct tr_scratch *ts, const struct lj_offsets *off)
{
	__u64 T = 0, mcode = 0;
	__u32 sz = 0;

	if (i >= ts->sizetrace)
		return 1;
	bpf_probe_read_user(&T, off->gc64 ? 8 : 4,
			    (void *)(ts->traces + (__u64)i * (off->gc64 ? 8 : 4)));
	if (!T)
		return 0;
	if (bpf_probe_read_user(&mcode, 8, (void *)(T + (off->tr_mcode & 0xff))) ||
	    bpf_probe_read_user(&sz, 4, (void *)(T + (off->tr_szmcode & 0xff))))
		return 0;
	if (ts->find_ip) {
		if (ts->find_ip >= mcode && ts->find_ip < mcode + sz) {
			ts->found = (__s32)i;
			return 1;
		}
		return 0;
	}
	/* No IP: the trace holding the nearest return address in ts->ra. */
	for (__u32 w = 0; w < RA_SCAN && w < ts->best_ra; w++) {
		if (ts->ra[w] > mcode && ts->ra[w] < mcode + sz) {
			ts->best_ra = w;
			ts->found = (__s32)i;
			break;
		}
	}
	return 0;
}

/* Finds the frames trace `traceno` inlined at the sampled instant, for the
 * walk to record first (ts->pending), and leaves in c->pc the PC of the
 * root frame (at jit_base).  Returns the number of inlined frames; c->pc
 * stays 0 when the snapshot is unknown. */
static __always_inline __u32 trace_frames(struct tr_scratch *ts, struct walk_ref *ref,
					  const __u8 *gblk, __s32 traceno, __u64 ip, __u64 sp,
					  int *by_ra)
{
	struct walk_ctx *c = ref->c;
	const struct lj_offsets *off = &c->off;
	__u64 traces, T = 0, mcode, snap, snapmap, pc;
	__u32 sizetrace, szmcode, ofs, idx, nsnapmap, post;
	__u16 nsnap;

	c->pc = 0;
	*by_ra = 0;
	ts->missed = 0;
	/* J->trace (a C pointer) and J->sizetrace, from the sample's
	 * global_State block: every layout has them there (test_layout). */
	traces = g_field(off, gblk, off->g_trace, 8);
	sizetrace = (__u32)g_field(off, gblk, off->g_sizetrace, 4);
	if (!off->g_trace || !traces || traceno <= 0 || (__u32)traceno >= sizetrace)
		return 0;
	bpf_probe_read_user(&T, off->gc64 ? 8 : 4,
			    (void *)(traces + (__u64)traceno * (off->gc64 ? 8 : 4)));
	if (!T || bpf_probe_read_user(ts->t, T_BLOCK, (void *)T))
		return 0;
	mcode = field(ts->t, T_BLOCK, off->tr_mcode, 8);
	szmcode = (__u32)field(ts->t, T_BLOCK, off->tr_szmcode, 4);
	ofs = trace_mc_offset(ts, mcode, szmcode, ip, sp, by_ra);
	if (!ofs && !(ip >= mcode && ip < mcode + szmcode)) {
		ts->missed = 1;
		return 0;
	}
	nsnap = (__u16)field(ts->t, T_BLOCK, off->tr_nsnap, 4);
	snap = field(ts->t, T_BLOCK, off->tr_snap, 8);
	snapmap = field(ts->t, T_BLOCK, off->tr_snapmap, 8);
	nsnapmap = (__u32)field(ts->t, T_BLOCK, off->tr_nsnapmap, 4);
	ts->ir = field(ts->t, T_BLOCK, off->tr_ir, off->gc64 ? 8 : 4);
	if (!nsnap || !snap || !snapmap || !ts->ir)
		return 0;
	/* Without mcofs no snapshot maps machine code to a PC. */
	if (!off->snap_mcofs || off->snap_mcofs > SNAP_SIZE - 2 || off->snap_nent >= SNAP_SIZE)
		return 0;
	/* mcofs counts the architecture's instruction units (regs.bpf.h). */
	ofs >>= MCODE_UNIT_SHIFT;
	idx = snap_covering(ts, snap, nsnap, ofs, off->snap_mcofs);
	post = *by_ra && snap_after_call(snap, nsnap, idx, ofs + 1, off->snap_mcofs);
	idx += post;
	ts->gc64 = off->gc64;
	pc = snap_read(ts, snap, snapmap, nsnapmap, idx, nsnap, off->snap_nent);
	if (!pc)
		return 0;
	ts->linkno = 0;
	ts->prev_sn = 0;
	ts->cont_pc = 0;
	ts->root_fn = 0;
	ts->nf = 0;
	for (__u32 i = 0; i < 255; i++)
		if (trace_scan_entry(i))
			break;
	/* A snapshot PC is the instruction to resume at; frame PCs point
	 * just after the current instruction: the resume PC itself after a
	 * call, which is the instruction before it. */
	c->pc = post ? pc : pc + 4;
	/* The inlined frames are recorded by the walk, first (walk_threads:
	 * a call chain of its own, which keeps every chain's stack within
	 * the verifier's 512 bytes); the root frame's PC is the PC of the
	 * frame the bottom one was called from. */
	ts->top_pc = c->pc;
	ts->pending = ts->nf;
	if (ts->nf)
		c->pc = ts->caller_pc[0];
	c->root_fn = ts->root_fn;
	return ts->nf;
}

#endif
