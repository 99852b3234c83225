/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The LuaJIT frame walker, run inside the perf_event program while the
 * sampled thread is stopped (docs/luajit-internals.md, "Frames").
 *
 * Frames are walked from the top (the base the sampler chose) down to the
 * bottom of the Lua stack.  Each step reads the frame's function slot and
 * link, validates them and records (GCfunc, current PC).  The walk stops at
 * the stack bottom, at LBP_MAX_FRAMES, or at the first frame that fails
 * validation.
 */
#ifndef LBP_WALK_BPF_H
#define LBP_WALK_BPF_H

#include "prelude.bpf.h"
#include "protos.bpf.h"

#include "native.bpf.h"

/* A GC64 TValue's type: its top 17 bits, sign-extended (src/lj_obj.h
 * itype: a GC object's is ~its type, its address below). */
static __always_inline __u32 gc64_itype(__u64 tv)
{
	return (__u32)((__s64)tv >> 47);
}

/* Stack slots are fetched a window at a time: a frame is a few slots, so
 * one read usually serves several frames. */
#define STACK_WIN	2048

#include "walkcache.bpf.h"

#define FN_WORDS	8	/* GCfunc words read: up to the C function pointer */

/* Kept in a map value, not on the stack: the verifier then treats lo and
 * len as unknown, instead of exploring each value they take in the loop. */
struct stack_window {
	__u64 lo;		/* target address of bytes[0] */
	__u64 len;		/* valid bytes, 0 = empty */
	__u8 bytes[STACK_WIN];
};

struct walk_ctx {
	struct lj_offsets off;
	__u64 stack_lo;		/* first byte of the Lua stack array */
	__u64 L;		/* the lua_State being walked */
	__u64 frame;		/* address of the current frame's link slot */
	__u64 bottom;		/* frames must stay above this */
	__u64 stack_end;	/* and below this */
	__u64 pc;		/* PC current in the frame being recorded */
	/* The top frame's link while the VM has it in PC only: entering a
	 * function from C, ->vm_call_dispatch (src/vm_x64.dasc) sets BASE
	 * before it stores the link.  0: none. */
	__s64 top_link;
	__u64 hash;
	/* The last function, prototype and chunk name read in this walk.  The
	 * sampled thread is stopped and owns its VM, so nothing it references
	 * can change during the walk: meeting one again needs no read. */
	__u64 last_fn, last_id;
	__u64 last_pt, last_str;
	__u32 last_fp, last_sid;
	__u32 last_sizebc;	/* last_pt's bytecode length, in instructions */
	__u64 strep;		/* the VM's string epoch (walkcache.bpf.h), 0: unknown */
	/* A CALL read this step, cached once the caller's prototype is known */
	__u64 pend_link;
	__u32 pend_a;
	__u32 cache_hits;	/* frames resolved through the caches */
	__u64 root_fn;		/* first frame's function, when a trace replaced it */
	__u64 g;		/* the universe walked (prototype announcements) */
	__u32 tgid;
	__u32 proto_lost;	/* announcements the ring buffer had no room for */
	__u32 n;
	__u32 steps;		/* frame slots read in this thread */
	__u32 max;		/* frames to record before declaring truncation */
	__u32 flags;
	/* Coroutine stitching (walk_resumer) */
	__u64 mainth;		/* the universe's main thread */
	__u64 cframe;		/* the walked thread's current C frame (raw) */
	__u64 cframe_top;	/* --native: the sampled thread's own (raw) */
	/* Last, and not cleared per sample: where object headers are read
	 * (a map value, not the stack, which a call chain may use 512
	 * bytes of on the verifiers that count every frame of it). */
	__u64 fn_hdr[FN_WORDS];
	__u64 pt_hdr[PT_WORDS];
	__u64 pair[2];		/* two stack slots (stack_read16) */
};

/* The part of a walk_ctx cleared at the start of each sample. */
#define WALK_CTX_CLEARED	offsetof(struct walk_ctx, fn_hdr)

/* What bpf_loop hands the callback.  The walk state lives in a map value,
 * so the verifier does not explore each value its fields take; pointers
 * stay here, on the stack, where the verifier keeps their types. */
struct walk_ref {
	struct walk_ctx *c;
	struct stack_window *win;
	struct stack_trace *st;
};

/* A naturally aligned field of 1, 4 or 8 bytes at offset o of an object
 * read into words from its start (GC objects are 8-aligned): one aligned
 * load, where a byte array at a variable offset costs a load per byte. */
static __always_inline __u64 word_field(const __u64 *w, __u32 nwords, __u32 o, __u32 size)
{
	__u64 v = w[(o >> 3) & (nwords - 1)] >> ((o & 7) * 8);

	return size == 8 ? v : size == 4 ? (v & 0xffffffffull) : (v & 0xff);
}

static __always_inline __u64 mix_hash(__u64 h, __u64 v)
{
	h ^= v;
	h *= 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

/* Reads 16 bytes of the Lua stack at addr through the window, refilling
 * it so that it ends at addr + 16 (walks go downwards). */
static __always_inline int stack_read16(struct walk_ref *ref, __u64 addr, __u64 out[2])
{
	struct walk_ctx *c = ref->c;
	struct stack_window *w = ref->win;
	__u64 rel = addr - w->lo;

	if (addr & 7)
		return -1;
	if (!w->len || addr < w->lo || rel + 16 > w->len) {
		__u64 lo = addr + 16 > STACK_WIN ? addr + 16 - STACK_WIN : 0;
		__u64 len;

		if (lo < c->stack_lo)
			lo = c->stack_lo;
		len = addr + 16 - lo;
		if (addr < lo || len > STACK_WIN)
			return -1;
		/* Two tests the compiler cannot fuse into one range check on a
		 * copy of len: verifiers before 6.16 bound the copy, not the
		 * length the read is given (issue 25). */
		barrier_var(len);
		if (len < 16)
			return -1;
		if (bpf_probe_read_user(w->bytes, len, (void *)lo))
			return -1;
		w->lo = lo;
		w->len = len;
		rel = addr - lo;
	}
	/* Slots are 8-aligned, and so is the window: two aligned loads. */
	rel &= STACK_WIN - 8;
	if (rel > STACK_WIN - 16)
		return -1;
	out[0] = *(__u64 *)(w->bytes + rel);
	out[1] = *(__u64 *)(w->bytes + rel + 8);
	return 0;
}

/* What a GCfunc is: its prototype, C function or fast-function id, read
 * from one span of its header (up to the C function pointer), the GC type
 * checked.  Returns -1 on a read fault, 1 when fn is no function, 0 with
 * *id. */
static __always_inline int resolve_func(struct walk_ctx *c, __u64 fn, __u64 *id)
{
	const struct lj_offsets *off = &c->off;
	__u64 *hdr = c->fn_hdr;
	/* A clamp, not a mask: a mask would cut the non-GC64 span short. */
	__u32 span = off->fn_cfunc + 8;
	__u64 v;
	__u8 ffid;

	if (fn && fn == c->last_fn) {
		*id = c->last_id;
		return 0;
	}
	if (span > sizeof(c->fn_hdr))
		span = sizeof(c->fn_hdr);
	if (bpf_probe_read_user(hdr, span, (void *)fn))
		return -1;
	if (word_field(hdr, FN_WORDS, off->gct, 1) != LJ_GCT(LJ_TFUNC))
		return 1;
	ffid = word_field(hdr, FN_WORDS, off->fn_ffid, 1);
	if (ffid == 0) {		/* Lua: bytecode follows the GCproto */
		v = word_field(hdr, FN_WORDS, off->fn_pc, off->gc64 ? 8 : 4);
		*id = ((v - off->sizeof_proto) & FRAME_ID_MASK) |
		      (FRAME_KIND_LUA << FRAME_KIND_SHIFT);
	} else if (ffid == 1) {	/* lua_CFunction */
		v = word_field(hdr, FN_WORDS, off->fn_cfunc, 8);
		*id = (v & FRAME_ID_MASK) | (FRAME_KIND_C << FRAME_KIND_SHIFT);
	} else {			/* fast function */
		*id = ffid | (FRAME_KIND_FF << FRAME_KIND_SHIFT);
	}
	c->last_fn = fn;
	c->last_id = *id;
	return 0;
}

/* Reads the function slot and the link of the frame at ctx->frame.
 * GC64: [func TValue][link] in two slots; otherwise one slot holding the
 * 32-bit GCRef in its low half and the link in its high half.  Returns -1
 * on a read fault, 1 when the slot holds neither a function nor L (a dummy
 * frame), 0 otherwise.  Non-GC64, the function is resolved here: its type
 * is only known from its header.
 */
static __always_inline int read_frame(struct walk_ref *ref, __u64 *fn, __s64 *link)
{
	struct walk_ctx *c = ref->c;
	__u64 *slots = c->pair;

	if (stack_read16(ref, c->frame - 8, slots))
		return -1;
	if (c->off.gc64) {
		*fn = slots[0] & LJ_GCVMASK;
		*link = (__s64)slots[1];
		if (*fn != c->L && gc64_itype(slots[0]) != LJ_TFUNC)
			return 1;
	} else {
		__u64 id;

		/* One slot: the 32-bit GCRef low, a 32-bit PC or type|delta high. */
		*fn = slots[1] & 0xffffffffull;
		*link = (__s64)(slots[1] >> 32);
		/* L needs no check; anything else is resolved now, in the one
		 * read that tells a function (record() keeps what it found). */
		if (*fn == c->L)
			return 0;
		return resolve_func(c, *fn, &id);
	}
	return 0;
}

/* Whether pc lies in the bytecode of the prototype at pt, sizebc
 * instructions long (saved PCs point after their instruction). */
static __always_inline bool pc_in_proto(const struct walk_ctx *c, __u64 pt, __u32 sizebc, __u64 pc)
{
	__u64 bc = pt + c->off.sizeof_proto;

	return pc > bc && pc <= bc + 4ull * sizebc;
}

/* The prototype's fingerprint (sampler.h) at pt, read now while it runs,
 * and its bytecode length in *sizebc; 0 when a read fails, which leaves
 * user space its own revalidation.  Its header span is read every time;
 * the chunk name's sid comes from the prototype cache while the string
 * epoch holds (walkcache.bpf.h).  *is_pt: the header's type says GCproto.
 * pc_check, when not 0, is a PC that must lie in its bytecode (else 0,
 * *is_pt 0, nothing announced): pt is then what a slot the call-site
 * cache points at leads to. */
static __always_inline __u32 proto_fingerprint(struct walk_ctx *c, __u64 pt, __u64 pc_check,
					       __u32 *sizebc, int *is_pt)
{
	const struct lj_offsets *off = &c->off;
	__u64 *h = c->pt_hdr;
	__u32 span = off->pt_numline + 4;
	struct pt_cache_ent *ent;
	__u64 str, lines;
	__s32 first, num;
	__u32 sid = 0, fp;

	if (pt == c->last_pt) {
		*sizebc = c->last_sizebc;
		*is_pt = 1;
		return c->last_fp;
	}
	*sizebc = 0;
	*is_pt = 0;
	if (span > sizeof(c->pt_hdr))
		span = sizeof(c->pt_hdr);
	if (bpf_probe_read_user(h, span, (void *)pt))
		return 0;
	*is_pt = word_field(h, PT_WORDS, off->gct, 1) == LJ_GCT(LJ_TPROTO);
	*sizebc = (__u32)word_field(h, PT_WORDS, off->pt_sizebc, 4);
	if (pc_check && (!*is_pt || !pc_in_proto(c, pt, *sizebc, pc_check))) {
		*is_pt = 0;
		return 0;
	}
	str = word_field(h, PT_WORDS, off->pt_chunkname, off->gc64 ? 8 : 4);
	first = (__s32)word_field(h, PT_WORDS, off->pt_firstline, 4);
	num = (__s32)word_field(h, PT_WORDS, off->pt_numline, 4);
	if (!str)
		return 0;
	lines = (__u32)first | (__u64)(__u32)num << 32;
	ent = pt_cache_at(pt, c->tgid);
	if (ent && c->strep && ent->pt == pt && ent->tgid == c->tgid && ent->str == str &&
	    ent->lines == lines && ent->strep == c->strep) {
		/* Read and announced before, and no string made since. */
		fp = ent->fp;
		c->cache_hits++;
		goto done;
	}
	if (str == c->last_str) {
		sid = c->last_sid;
	} else {
		if (bpf_probe_read_user(&sid, 4, (void *)(str + off->str_sid)))
			return 0;
		c->last_str = str;
		c->last_sid = sid;
	}
	fp = frame_fingerprint(sid, first, num);
	/* Met for the first time in this walk: user space may not know it. */
	if (proto_announce(off, c->tgid, c->g, pt, str, fp)) {
		c->proto_lost++;
	} else if (ent && c->strep) {
		ent->pt = pt;
		ent->tgid = c->tgid;
		ent->str = str;
		ent->lines = lines;
		ent->strep = c->strep;
		ent->sid = sid;
		ent->fp = fp;
	}
done:
	c->last_pt = pt;
	c->last_fp = fp;
	c->last_sizebc = *sizebc;
	return fp;
}

/* The CALL read by the step that found this frame, cached with this
 * frame's prototype and fingerprint, which a later hit must match. */
static __always_inline void call_cache_fill(struct walk_ctx *c, __u64 pt, __u32 fp)
{
	struct call_cache_ent *ent;

	if (!c->pend_link)
		return;
	ent = fp ? call_cache_at(c->pend_link, c->tgid) : NULL;
	if (ent) {
		ent->link = c->pend_link;
		ent->tgid = c->tgid;
		ent->pt = pt;
		ent->fp = fp;
		ent->a = c->pend_a;
	}
	c->pend_link = 0;
}

/* Records frame fn at c->pc: -1 on a read fault, 1 when fn is no
 * function, else 0. */
static __always_inline int record(struct walk_ref *ref, __u64 fn)
{
	struct walk_ctx *c = ref->c;
	struct lua_frame *f;
	__u32 i = c->n, sizebc = 0;
	__u64 id = 0;
	int is_pt = 0, err;

	if (i >= LBP_MAX_FRAMES)
		return 0;
	err = resolve_func(c, fn, &id);
	if (err)
		return err;
	f = &ref->st->frames[i];
	f->id = id;
	f->pc_off = 0;
	f->fp = 0;
	if ((id >> FRAME_KIND_SHIFT) == FRAME_KIND_LUA) {
		__u64 pt = id & FRAME_ID_MASK;

		if (c->pc > pt && c->pc - pt < 0xffffffffull)
			f->pc_off = (__u32)(c->pc - pt);
		f->fp = proto_fingerprint(c, pt, 0, &sizebc, &is_pt);
		call_cache_fill(c, pt, f->fp);
	}
	c->hash = mix_hash(mix_hash(c->hash, id), (__u64)f->fp << 32 | f->pc_off);
	c->n = i + 1;
	return 0;
}

/* The caller's frame size from the call-site cache: the A operand of the
 * CALL before link, trusted when the slot it leads to holds a function
 * whose header, read now, names the prototype recorded with it, with link
 * in its bytecode and the fingerprint, taken now, recorded.  Those reads
 * are the ones the caller's own frame makes next (resolve_func and
 * proto_fingerprint keep them).  Returns 1 with *a. */
static __always_inline int call_cache_try(struct walk_ref *ref, __u64 link, __u32 *a)
{
	struct walk_ctx *c = ref->c;
	struct call_cache_ent *ent = call_cache_at(link, c->tgid);
	__u64 *slots = c->pair, fn, frame, pt, id = 0;
	__u32 fp = 0, sizebc = 0;
	int is_pt = 0;

	if (!ent || ent->link != link || ent->tgid != c->tgid)
		return 0;
	frame = c->frame - 8 * (1 + c->off.gc64 + (ent->a & 0xff));
	if (frame <= c->bottom || frame >= c->stack_end || stack_read16(ref, frame - 8, slots))
		return 0;
	if (c->off.gc64) {
		if (gc64_itype(slots[0]) != LJ_TFUNC)
			return 0;
		fn = slots[0] & LJ_GCVMASK;
	} else {
		fn = slots[1] & 0xffffffffull;
	}
	if (resolve_func(c, fn, &id) || (id >> FRAME_KIND_SHIFT) != FRAME_KIND_LUA ||
	    (id & FRAME_ID_MASK) != ent->pt)
		goto miss;
	pt = id & FRAME_ID_MASK;
	fp = proto_fingerprint(c, pt, link, &sizebc, &is_pt);
	if (is_pt && fp && fp == ent->fp) {
		*a = ent->a;
		return 1;
	}
miss:
	/* Not the caller after all: what was read there is not a frame's. */
	c->last_fn = 0;
	return 0;
}

/* One frame: 1 when the walk of this thread is over.  Called by the
 * global function walk_frame (sampler.bpf.c), once per frame. */
static __always_inline int walk_step(struct walk_ref *ref)
{
	struct walk_ctx *c = ref->c;
	__u64 fn = 0, next_pc = 0;
	__s64 link = 0;
	__u32 caller_ins = 0;
	int err;

	if (c->frame <= c->bottom)
		return 1;			/* reached the bottom */
	if (c->frame >= c->stack_end) {
		c->flags |= STACK_BAD_FRAME;
		return 1;
	}
	if (c->n >= c->max) {
		c->flags |= STACK_TRUNCATED;
		return 1;
	}
	err = read_frame(ref, &fn, &link);
	/* The top frame of a function returning (a C function's results
	 * moved down over its slot by ->vm_returnc, src/vm_x64.dasc, while
	 * vmstate still says C): not a level any more; its link still leads
	 * to its caller, which the next step validates. */
	if (err > 0 && c->steps == 0 && c->off.gc64) {
		err = 0;
		fn = c->L;
	}
	c->steps++;
	if (err) {
		c->flags |= err < 0 ? STACK_READ_FAULT : STACK_BAD_FRAME;
		return 1;
	}
	if (c->top_link && link == (c->off.gc64 ? -1 : 0xffffffffll))
		link = c->top_link;	/* the slot still holds nil */
	c->top_link = 0;
	if ((link & FRAME_TYPEP) == FRAME_VARG) {
		/* Upper copy of a vararg frame: the lower copy holds the real
		 * link and is the one level LuaJIT counts. */
		c->frame -= link & ~(__s64)FRAME_TYPEP;
		return 0;
	}
	if (c->root_fn) {	/* trace.bpf.h: a tail call the stack misses */
		fn = c->root_fn;
		c->root_fn = 0;
	}
	/* A dummy frame holds L: not a level. */
	if (fn != c->L && (err = record(ref, fn))) {
		c->flags |= err < 0 ? STACK_READ_FAULT : STACK_BAD_FRAME;
		return 1;
	}
	/* --native: flag the frame a VM activation begins with (native.bpf.h). */
	if (native_stack && fn != c->L && c->n && native_is_entry(link, c->frame, c->off.gc64)) {
		ref->st->frames[(c->n - 1) & (LBP_MAX_FRAMES - 1)].id |= FRAME_ENTRY;
		c->hash = mix_hash(c->hash, c->n);
	}

	if ((link & FRAME_TYPE) == FRAME_LUA) {
		/* Called from Lua: link is the caller's PC, just after its CALL;
		 * the CALL's A operand gives the caller's frame size. */
		__u32 a = 0;

		c->pend_link = 0;
		if (call_cache_try(ref, (__u64)link, &a)) {
			c->cache_hits++;
		} else {
			if (bpf_probe_read_user(&caller_ins, 4, (void *)(link - 4))) {
				c->flags |= STACK_READ_FAULT;
				return 1;
			}
			a = (caller_ins >> 8) & 0xff;
			c->pend_link = (__u64)link;
			c->pend_a = a;
		}
		next_pc = (__u64)link;
		c->frame -= 8 * (1 + c->off.gc64 + (a & 0xff));
	} else {
		if ((link & FRAME_TYPEP) == FRAME_CONT) {
			/* Metamethod continuation: the Lua caller's PC sits two
			 * slots below (GC64) or in the slot below (non-GC64). */
			__u64 *cont = c->pair;

			if (!stack_read16(ref, c->frame - 16, cont))
				next_pc = c->off.gc64 ? cont[0] : cont[1] >> 32;
		}
		if ((link & ~(__s64)FRAME_TYPEP) <= 0) {
			c->flags |= STACK_BAD_FRAME;
			return 1;
		}
		c->frame -= link & ~(__s64)FRAME_TYPEP;
	}
	c->pc = next_pc;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Coroutines under their resumer */

#define LBP_MAX_THREADS	4	/* threads walked per sample: the running one, its resumers */
#define CHAIN_MAX	8	/* nested VM activations followed per thread */
#define THREAD_BLOCK	64	/* lua_State bytes read from L->base on */

/* Field of a lua_State block read from L->base (4 or 8 bytes). */
static __always_inline __u64 thread_field(const __u8 *blk, __u32 rel, __u32 size)
{
	__u64 v = 0;

	rel &= THREAD_BLOCK - 1;
	if (rel > THREAD_BLOCK - 8)
		return 0;
	__builtin_memcpy(&v, blk + rel, 8);
	return size == 8 ? v : (v & 0xffffffffull);
}

/* The thread that resumed the one walked so far, and where its frames
 * start; the walk then goes on there.  Returns 1 when found.
 *
 * A coroutine's first VM activation is entered by lj_vm_resume, which
 * starts a C frame with no previous one (SAVE_CFRAME = 0, src/vm_x64.dasc
 * ->vm_resume); it is the end of the thread's cframe chain.
 * - Resumed from Lua: coroutine.resume and coroutine.wrap's function call
 *   ->vm_resume straight from the resumer's VM frame, after storing the
 *   resumer's L->base (src/vm_x64.dasc coroutine_resume_wrap).  So the
 *   resumer's C frame lies CFRAME_SIZE above, names its lua_State
 *   (CFRAME_OFS_L), and is that thread's current C frame.
 * - Resumed from C (lua_resume in a C function, src/lj_api.c): the C
 *   function's thread has an activation further up the C stack, and its
 *   L->base is exact (BC_FUNCC stores it).  Only the main thread is tried:
 *   nothing links the coroutine to another.
 * Threads resumed by a host's own C code (nginx's event loop) have no
 *   resumer with Lua frames: their stack ends where it ends. */
static __always_inline int walk_resumer(struct walk_ref *ref, __u8 *blk)
{
	struct walk_ctx *c = ref->c;
	const struct lj_offsets *off = &c->off;
	__u32 ref_size = off->gc64 ? 8 : 4;
	__u64 cf = c->cframe, prev = 0, L2 = 0, cf2 = 0, stack;
	__u32 stacksize;

	if (!cf || c->L == c->mainth)
		return 0;	/* the main thread is never resumed */
	for (int i = 0; i < CHAIN_MAX; i++) {
		if (bpf_probe_read_user(&prev, 8, (void *)(cf + off->cframe_prev)))
			return 0;
		prev &= CFRAME_RAWMASK;
		if (!prev)
			break;
		cf = prev;
	}
	if (prev)
		return 0;
	cf2 = cf + off->cframe_size;
	bpf_probe_read_user(&L2, ref_size, (void *)(cf2 + off->cframe_L));
	if (L2 && L2 != c->L &&
	    !bpf_probe_read_user(blk, THREAD_BLOCK, (void *)(L2 + off->L_base)) &&
	    (thread_field(blk, off->L_cframe - off->L_base, 8) & CFRAME_RAWMASK) == cf2) {
		/* resumed from Lua */
	} else {
		L2 = c->mainth;
		if (!L2 || bpf_probe_read_user(blk, THREAD_BLOCK, (void *)(L2 + off->L_base)))
			return 0;
		cf2 = thread_field(blk, off->L_cframe - off->L_base, 8) & CFRAME_RAWMASK;
		if (cf2 <= cf || cf2 - cf >= (1 << 20))
			return 0;	/* no activation of it above the coroutine's */
	}
	stack = thread_field(blk, off->L_stack - off->L_base, ref_size);
	stacksize = (__u32)thread_field(blk, off->L_stacksize - off->L_base, 4);
	c->L = L2;
	c->cframe = cf2;
	c->stack_lo = stack;
	c->bottom = stack + 8 * off->gc64;
	c->stack_end = stack + 8ull * stacksize;
	c->frame = thread_field(blk, 0, ref_size) - 8;
	c->pc = 0;		/* its top is the resuming function: no PC */
	c->steps = 0;
	ref->win->len = 0;	/* another stack */
	return c->frame > c->bottom && c->frame < c->stack_end;
}

#endif
