// SPDX-License-Identifier: MIT
/* The functions a trace inlined without a snapshot (jit/jinline.h),
 * named for a note: the upvalue a known closure of the trace holds them
 * in (the way the recorder made them constants), else the local variable
 * a known function's FNEW created them in, else "chunk:line". */
#include "symbolize/symbolize.h"

#include <stdbool.h>
#include <stdio.h>

#include "base/strbuf.h"
#include "model/frame_fmt.h"
#include "luajit/bcmode.h"
#include "symbolize/symbolizer_int.h"
#include "jit/jinline.h"
#include "jit/jstate.h"
#include "jit/jtrace.h"
#include "luajit/layout.h"
#include "luajit/luaobj.h"
#include "proc/memory.h"

#define MAX_UPVALUES	256

/* Whether upvalue i of closure c holds fn. */
static bool upvalue_holds(struct symbolizer *s, uint64_t c, uint32_t i, uint64_t fn)
{
	const struct lj_layout *lay = s->lay;
	uint64_t uv = 0, v = 0, tv = 0;

	return !layout_read_ref(s->mem, lay, c + lay->fn_uvptr + (uint64_t)i * (lay->gc64 ? 8 : 4),
				&uv) && uv &&
	       !layout_read_ref(s->mem, lay, uv + lay->uv_v, &v) && v &&
	       !mem_read(s->mem, v, &tv, 8) && lj_tv_itype(lay, tv) == LJ_TFUNC &&
	       lj_tv_gcptr(lay, tv) == fn;
}

/* The name of the upvalue of a known closure that holds fn, or NULL. */
static const char *upvalue_name_of(struct symbolizer *s, const struct jinline_fn *known,
				   size_t nknown, uint64_t fn)
{
	for (size_t k = 0; k < nknown; k++) {
		struct proto_entry *e;
		uint8_t nup = 0;

		if (known[k].fn == fn || !(e = proto_get(s, known[k].pt, 0)) ||
		    mem_read(s->mem, known[k].fn + s->lay->fn_nupvalues, &nup, 1))
			continue;
		for (uint32_t i = 0; i < nup && i < e->sizeuv && i < MAX_UPVALUES; i++)
			if (upvalue_holds(s, known[k].fn, i, fn))
				return proto_upvalue_name(s, e, i);
	}
	return NULL;
}

/* The local variable of known prototype owner that an FNEW of pt made
 * (`local function sq`), or NULL. */
static const char *fnew_local(struct symbolizer *s, uint64_t owner, uint64_t pt)
{
	struct proto_entry *e = proto_get(s, owner, 0);
	const uint32_t *bc = e ? proto_bc(s, e) : NULL;
	uint64_t refsize = s->lay->gc64 ? 8 : 4;

	for (uint32_t pos = 1; bc && pos < e->sizebc; pos++) {
		uint64_t ref = 0;

		/* D indexes the GC constants, which grow down from k. */
		if (bc_op(bc[pos]) != BC_FNEW || bc_d(bc[pos]) >= e->sizekgc ||
		    mem_read(s->mem, e->k - (bc_d(bc[pos]) + 1ull) * refsize, &ref, refsize) ||
		    ref != pt)
			continue;
		return proto_local_name(s, e, pos + 1, bc_a(bc[pos]));
	}
	return NULL;
}

/* Its name: an upvalue holding it, else the local its FNEW made in the
 * trace's start or a known function. */
static const char *inlined_name(struct symbolizer *s, const struct jinline_fn *known,
				size_t nknown, uint64_t startpt, const struct jinline_fn *f)
{
	const char *name = upvalue_name_of(s, known, nknown, f->fn);

	if (!name)
		name = fnew_local(s, startpt, f->pt);
	for (size_t k = 0; !name && k < nknown; k++)
		if (known[k].pt != f->pt)
			name = fnew_local(s, known[k].pt, f->pt);
	return name;
}

static int trace_inlined(struct symbolizer *s, uint64_t g, int traceno, char *buf, size_t len)
{
	const struct lj_layout *lay = s->lay;
	struct jinline_fn inl[JINLINE_MAX], known[2 * JINLINE_MAX];
	struct jstate js = { 0 };
	struct jtrace tr;
	struct strbuf sb = STRBUF_INIT;
	size_t nframed = 0, nknown;
	int n, named = 0;

	if (traceno <= 0 || !len || mem_read(s->mem, g + lay->g_trace, &js.traces, 8) ||
	    mem_read(s->mem, g + lay->g_sizetrace, &js.sizetrace, 4) ||
	    jtrace_read(s->mem, lay, &js, (unsigned)traceno, &tr))
		return -1;
	n = jinline_read(s->mem, lay, &tr, inl, JINLINE_MAX, known, JINLINE_MAX, &nframed);
	if (n <= 0)
		return n;
	nknown = nframed;
	for (int i = 0; i < n; i++)
		known[nknown++] = inl[i];
	for (int i = 0; i < n; i++) {
		struct proto_entry *e = proto_get(s, inl[i].pt, 0);
		struct frame_sym f = { .kind = SYM_LUA, .line = -1 };

		if (!e)
			continue;
		f.chunk = e->chunk;
		f.firstline = e->firstline;
		f.name = inlined_name(s, known, nknown, tr.startpt, &inl[i]);
		if (named++)
			sb_puts(&sb, ", ");
		frame_put(&sb, &f, 'F', true);
	}
	snprintf(buf, len, "%s", sb_str(&sb));
	sb_free(&sb);
	return named;
}

int sym_trace_inlined(struct symbolizer *s, uint64_t g, int traceno, char *buf, size_t len)
{
	struct inlined_memo *m = &s->inlined[(unsigned)traceno % INLINED_CACHE];

	if (traceno <= 0 || !len)
		return -1;
	/* A target that exited keeps what was read while it lived. */
	if (m->traceno != traceno || m->g != g || (m->epoch != s->epoch && !s->frozen)) {
		*m = (struct inlined_memo){ .g = g, .traceno = traceno, .epoch = s->epoch };
		m->n = trace_inlined(s, g, traceno, m->text, sizeof(m->text));
	}
	snprintf(buf, len, "%s", m->n > 0 ? m->text : "");
	return m->n;
}
