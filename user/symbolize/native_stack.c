// SPDX-License-Identifier: MIT
/* --native: native and Lua frames of one sample, interleaved.
 *
 * Native frames are unwound by CFI from the sampled registers.  Code of
 * the VM (the interpreter, lj_vm_asm_begin ... its end) and machine code
 * outside any file (JIT traces, FFI callback trampolines) is not unwound
 * by CFI: the interpreter's CFI only holds where its frame is the C frame
 * itself, and traces have none.  There the walk goes on from the VM
 * activation's C frame instead, whose layout is fixed (src/lj_frame.h
 * CFRAME_*, src/vm_x64.dasc saveregs): the C caller's return address is
 * its last word, the callee-saved registers the VM pushed sit below it.
 * The activations nest in the order of L->cframe's chain (cframe_prev),
 * and the Lua frames between two activations' entries belong to the inner
 * one (FRAME_ENTRY marks each activation's first frame). */
#include "symbolize/native_stack.h"

#include <stdio.h>
#include <string.h>

#include "model/profile.h"
#include "native/nmods.h"
#include "native/unwind.h"
#include "native/vmedge.h"
#include "lj_consts.h"

#define MAX_CFRAMES	64
#define EDGE_CODE	32	/* bytes of code read at a PC in the VM */

struct merge {
	struct nmods *m;
	struct profile *p;
	const struct native_in *in;
	const struct frame_sym **out;
	uint32_t n, cap;
	uint32_t lua_next;		/* first Lua frame not placed yet */
	uint32_t seg;			/* first native frame since the last Lua ones */
	const char *vm_file;		/* the file holding the interpreter */
	uint64_t cf[MAX_CFRAMES];	/* the C frame chain, innermost first */
	int ncf, cf_next;
	/* Crossings still to come that own no Lua frame (unlinked_inner). */
	int bare;
};

static bool put(struct merge *g, const struct frame_sym *f)
{
	if (g->n >= g->cap)
		return false;
	g->out[g->n++] = f;
	return true;
}

static const struct native_vm *vm_at(const struct native_in *in, uint64_t pc)
{
	for (int i = 0; i < in->nvms; i++)
		if (pc >= in->vms[i].lo &&
		    (pc < in->vms[i].hi || pc < in->vms[i].ffi_hi))
			return &in->vms[i];
	return NULL;
}

static void read_chain(struct merge *g, const struct uw_stack *st)
{
	uint64_t cf = g->in->rec->cframe & CFRAME_RAWMASK, prev;
	uint64_t resumer = g->in->rec->cframe_resumer & CFRAME_RAWMASK;
	uint16_t at = g->in->nvms ? g->in->vms[0].cframe_prev : 0;

	while (cf && g->ncf < MAX_CFRAMES) {
		g->cf[g->ncf++] = cf;
		if (uw_read(st, cf + at, &prev))
			break;
		prev &= CFRAME_RAWMASK;
		/* A coroutine's chain ends at its lj_vm_resume frame; its
		 * resumer's goes on above. */
		if (!prev && resumer > cf) {
			prev = resumer;
			resumer = 0;
		}
		if (prev <= cf)
			break;	/* the chain only goes up the stack */
		cf = prev;
	}
}

/* How many of the innermost activations the sample is in own no Lua frame
 * yet (or any more): when the walk is whole (nothing missing below) but
 * has fewer activation entries than the chain has C frames above the
 * sampled SP.  An FFI callback's C frame is in L->cframe while the walker
 * sees only the outer activation's frames: from lj_ccallback_enter's
 * L->cframe = cf until ->vm_ffi_callback loads BASE after it returns
 * (callback_conv_args sets L->base in between), and from the callback's
 * return (->cont_ffi_callback) until lj_ccallback_leave restores
 * L->cframe after L->base (src/lj_ccallback.c, src/vm_x64.dasc).
 * lj_vm_cpcall's C frame for the parser or the trace compiler
 * (cframe_nres < 0) has no Lua frame at all.  A walk cut short
 * (truncated, a bad frame) lost frames at the bottom instead: its frames
 * go from the innermost activation on, as they come. */
static int unlinked_inner(const struct merge *g, const struct native_vm *vm, uint64_t sp)
{
	int above = 0, entries = 0;

	if (!g->in->complete || !vm)
		return 0;
	for (int i = 0; i < g->ncf; i++)
		above += g->cf[i] + vm->cframe_size > sp;
	for (uint32_t i = 0; i < g->in->nlua; i++)
		entries += g->in->entry[i];
	return entries && above > entries ? above - entries : 0;
}

void native_name(struct nmods *m, uint64_t pc, bool top, struct frame_sym *f, char *buf,
		 size_t len)
{
	uint64_t at = top ? pc : pc - 1, off = 0;
	struct nmod_loc loc;
	const char *sym;

	f->kind = SYM_NATIVE;
	f->line = f->firstline = -1;
	f->cfunc = pc;
	if (!m || nmods_find(m, at, &loc) || !loc.path) {
		snprintf(buf, len, "[C]");
		f->cname = buf;
		return;
	}
	f->map_file = loc.path;
	f->map_build_id = loc.build_id;
	f->map_start = loc.start;
	f->map_limit = loc.limit;
	f->map_offset = loc.offset;
	sym = nmods_symbol(m, at, &off);
	if (sym) {
		f->cname = sym;
		f->cfunc = at - off;
	} else {
		const char *base = strrchr(loc.path, '/');

		snprintf(buf, len, "%s+0x%llx", base ? base + 1 : loc.path,
			 (unsigned long long)(at - loc.start + loc.offset));
		f->cname = buf;
	}
}

/* The native frame for pc (a return address unless top); NULL outside
 * any file. */
static const struct frame_sym *native_frame(struct merge *g, uint64_t pc, bool top)
{
	struct frame_sym f = { 0 };
	char buf[320];

	native_name(g->m, pc, top, &f, buf, sizeof(buf));
	if (!f.map_file)
		return NULL;
	return profile_frame(g->p, &f);
}

static const struct frame_sym *unknown(struct profile *p, const char *cause)
{
	struct frame_sym f = { .kind = SYM_UNKNOWN, .name = cause, .line = -1 };

	return profile_frame(p, &f);
}

static bool in_vm_file(const struct merge *g, const struct frame_sym *f)
{
	return f->kind == SYM_NATIVE && g->vm_file && f->map_file &&
	       !strcmp(f->map_file, g->vm_file);
}

/* The VM's own C code between a C function it called and the VM
 * (lj_ccall_func, lj_cf_ffi_meta___call): glue, dropped, unless it is
 * all there is (the GC, the JIT compiler: then it is what ran). */
static void drop_glue(struct merge *g)
{
	uint32_t n = g->n;

	while (n > g->seg && in_vm_file(g, g->out[n - 1]))
		n--;
	if (n > g->seg)
		g->n = n;
}

/* Whether native frame n, the one the VM called, is lua_CFunction c: its
 * symbol starts at c's address or, without a symbol (n->cfunc is then the
 * address itself), the address lies a little past c's in the same file. */
static bool same_function(const struct frame_sym *n, const struct frame_sym *c)
{
	bool named = n->cname && !strstr(n->cname, "+0x");

	if (named)
		return n->cfunc == c->cfunc;
	return c->cfunc && n->cfunc >= c->cfunc && n->cfunc - c->cfunc < 0x4000 &&
	       (!c->map_file || !n->map_file || !strcmp(c->map_file, n->map_file));
}

/* lua_CFunction c with native frame n's symbol, for pprof (csym). */
static const struct frame_sym *with_symbol(struct merge *g, const struct frame_sym *c,
					   const struct frame_sym *n)
{
	struct frame_sym f = *c;

	if (!n->cname || strstr(n->cname, "+0x") || (c->cname && !strcmp(c->cname, n->cname)))
		return c;
	f.csym = n->cname;
	if (!f.map_file) {
		f.map_file = n->map_file;
		f.map_build_id = n->map_build_id;
		f.map_start = n->map_start;
		f.map_limit = n->map_limit;
		f.map_offset = n->map_offset;
	}
	return profile_frame(g->p, &f);
}

/* Places the Lua frames of the next activation, up to and including the
 * frame it begins with.  A C function the VM called is both a native
 * frame (just placed) and a Lua one: a lua_CFunction keeps its Lua-side
 * name (ngx.say), an FFI call (ffi.meta.__call, named after what it
 * calls) its native frame, which has the mapping. */
static void put_activation(struct merge *g)
{
	const struct native_in *in = g->in;
	const struct frame_sym *last;
	bool first = true;

	drop_glue(g);
	if (g->bare > 0) {
		g->bare--;
		g->seg = g->n;
		return;
	}
	last = g->n > g->seg ? g->out[g->n - 1] : NULL;
	while (g->lua_next < in->nlua) {
		const struct frame_sym *f = in->lua[g->lua_next];
		bool entry = in->entry[g->lua_next];

		g->lua_next++;
		if (first && last && last->kind == SYM_NATIVE) {
			if (f->kind == SYM_C && same_function(last, f)) {
				g->n--;
				f = with_symbol(g, f, last);
			} else if (f->kind == SYM_FF && f->ffname && last->cname &&
				   !strcmp(f->ffname, last->cname)) {
				first = false;
				if (entry)
					break;
				continue;
			}
		}
		first = false;
		if (!put(g, f) || entry)
			break;
	}
	g->seg = g->n;
}

/* Leaves the VM through C frame cf: its C caller's state. */
static bool leave_frame(const struct native_vm *vm, const struct uw_stack *st,
			struct uw_regs *regs, uint64_t cf)
{
	return !uw_leave_cframe(st, regs, cf, vm->cframe_size);
}

/* Leaves the VM through the next C frame of the chain. */
static bool leave_vm(struct merge *g, const struct native_vm *vm, const struct uw_stack *st,
		     struct uw_regs *regs)
{
	/* Activations the sample is above: not this one (a coroutine's). */
	while (g->cf_next < g->ncf && g->cf[g->cf_next] + vm->cframe_size <= regs->r[UW_RSP])
		g->cf_next++;
	if (g->cf_next >= g->ncf)
		return false;
	return leave_frame(vm, st, regs, g->cf[g->cf_next++]);
}

/* Whether pc is a return address into a file's code outside the VM. */
static bool returns_to_c(struct merge *g, uint64_t pc)
{
	struct nmod_loc loc;

	return !vm_at(g->in, pc - 1) && !nmods_find(g->m, pc - 1, &loc) && loc.path && loc.exec;
}

/* The sampled PC in the interpreter at an activation's edge, where its C
 * frame is not whole or not linked into L->cframe: the rest of saveregs
 * or restoreregs read from the code (native/vmedge.h) or, past saveregs
 * and before L->cframe is set (no C frame at or above SP), the frame at
 * SP.  Only an outermost activation's Lua frames can be missing there:
 * the VM links the frame before it enters Lua. */
static bool vm_edge(struct merge *g, const struct native_vm *vm, const struct uw_stack *st,
		    struct uw_regs *regs)
{
	struct uw_regs r = *regs;
	uint8_t code[EDGE_CODE];
	size_t n = nmods_code(g->m, regs->r[UW_RA], code, sizeof(code));
	bool chain = false;

	if (n && !vmedge_step(code, n, vm->cframe_size, st, &r) && returns_to_c(g, r.r[UW_RA])) {
		*regs = r;
		return true;
	}
	for (int i = g->cf_next; i < g->ncf; i++)
		chain |= g->cf[i] + vm->cframe_size > regs->r[UW_RSP];
	r = *regs;
	if (chain || !leave_frame(vm, st, &r, regs->r[UW_RSP]) || !returns_to_c(g, r.r[UW_RA]))
		return false;
	*regs = r;
	return true;
}

uint32_t native_merge(struct nmods *m, struct profile *p, const struct native_in *in,
		      const struct frame_sym **out, uint32_t cap, enum native_end *end)
{
	const struct native_sample *r = in->rec;
	struct uw_stack st = { r->regs.sp, r->stack,
			       r->stack_len < NATIVE_STACK_MAX ? r->stack_len : NATIVE_STACK_MAX };
	struct uw_regs regs;
	struct merge g = { .m = m, .p = p, .in = in, .out = out, .cap = cap };
	const char *cause = NULL;
	bool top = true, refreshed = false;

	uw_from_native(&r->regs, &regs);
	read_chain(&g, &st);
	g.bare = unlinked_inner(&g, in->nvms ? &in->vms[0] : NULL, r->regs.sp);
	if (in->nvms) {
		struct nmod_loc vl;

		if (!nmods_find(m, in->vms[0].lo, &vl))
			g.vm_file = vl.path;
	}
	*end = NATIVE_CUT;
	while (g.n < g.cap) {
		uint64_t pc = regs.r[UW_RA], at = top ? pc : pc - 1;
		const struct native_vm *vm = vm_at(in, at);
		const struct frame_sym *f;
		struct nmod_loc loc;
		enum uw_result ur;

		if (nmods_find(m, at, &loc) && !refreshed) {
			refreshed = true;	/* a library loaded since */
			nmods_refresh(m);
			nmods_find(m, at, &loc);
		}
		if (vm || (loc.start && !loc.path && loc.exec)) {
			/* The VM: interpreter, or trace or trampoline code. */
			const struct native_vm *lv = vm ? vm : in->nvms ? &in->vms[0] : NULL;

			if (top && vm && at < vm->hi && vm_edge(&g, vm, &st, &regs)) {
				top = false;
				continue;
			}
			put_activation(&g);
			if (!lv || !leave_vm(&g, lv, &st, &regs)) {
				cause = "native: no C frame";
				break;
			}
			top = false;
			continue;
		}
		f = native_frame(&g, pc, top);
		if (!f) {
			cause = "native: no mapping";
			break;
		}
		put(&g, f);
		ur = uw_step(loc.cfi, loc.bias, top, &st, &regs);
		top = false;
		if (ur == UW_END) {
			*end = NATIVE_BOTTOM;
			break;
		}
		if (ur != UW_OK) {
			cause = ur == UW_NO_CFI ? "native: no CFI" : "native: stack copy ended";
			/* Native frames are lost up to the next VM activation;
			 * the rest of the stack is not: go on from it. */
			if (g.cf_next < g.ncf && in->nvms && g.n < g.cap) {
				g.out[g.n++] = unknown(p, cause);
				g.seg = g.n;
				put_activation(&g);
				if (leave_vm(&g, &in->vms[0], &st, &regs)) {
					cause = NULL;
					continue;
				}
			}
			break;
		}
	}
	if (g.n >= g.cap)
		*end = NATIVE_TOO_DEEP;
	/* Lua frames the unwind did not reach, then why it stopped. */
	while (g.lua_next < in->nlua && g.n < g.cap)
		g.out[g.n++] = in->lua[g.lua_next++];
	if (cause && g.n < g.cap)
		g.out[g.n++] = unknown(p, cause);
	return g.n;
}
