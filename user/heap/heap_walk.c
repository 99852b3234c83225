// SPDX-License-Identifier: MIT
/* The heap walk (see heap_walk.h). */
#include "heap/heap_walk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "heap/heap_budget.h"
#include "heap/heap_mem.h"
#include "luajit/layout.h"
#include "proc/memory.h"

#define MAX_STRMASK	((1u << 26) - 1)
#define MIN_OBJ_BYTES	8		/* bound a list by gc.total / this */
#define LIST_SLACK	4096		/* objects allocated while walking */
#define HDR_MIN		16

/* -- The object store ------------------------------------------------------ */

/* Addresses are 8-byte aligned and close together: a full 64-bit mix
 * (MurmurHash3's finalizer) spreads them over every bit the index uses. */
static uint64_t addr_hash(uint64_t a)
{
	a ^= a >> 33;
	a *= 0xff51afd7ed558ccdull;
	a ^= a >> 33;
	a *= 0xc4ceb9fe1a85ec53ull;
	return a ^ (a >> 33);
}

static uint64_t obj_hash(const void *ctx, uint32_t e)
{
	const struct heap_snapshot *s = ctx;

	return addr_hash(s->objs[e].addr);
}

static bool obj_match(const void *ctx, uint32_t e, const void *key)
{
	const struct heap_snapshot *s = ctx;

	return s->objs[e].addr == *(const uint64_t *)key;
}

static const struct hashidx_ops obj_ops = { obj_hash, obj_match };

uint32_t heap_snapshot_find(const struct heap_snapshot *snap, uint64_t addr)
{
	return hashidx_get(&snap->idx, &obj_ops, snap, addr_hash(addr), &addr);
}

void heap_snapshot_free(struct heap_snapshot *snap)
{
	free(snap->objs);
	hashidx_free(&snap->idx);
	heap_mem_close(snap->ctx.mem);
	memset(snap, 0, sizeof(*snap));
}

/* -- Visiting one object --------------------------------------------------- */

/* Reads an object's header: HEAP_HDR_BYTES, or up to the end of its page
 * when the next page is unmapped (a small object ending a mapping). */
static int read_header(struct heap_mem *m, uint64_t addr, uint8_t *hdr)
{
	size_t to_page = 4096 - (size_t)(addr & 4095);

	if (!heap_mem_read(m, addr, hdr, HEAP_HDR_BYTES))
		return 0;
	if (to_page >= HEAP_HDR_BYTES || to_page < HDR_MIN)
		return -1;
	memset(hdr, 0, HEAP_HDR_BYTES);
	return heap_mem_read(m, addr, hdr, to_page);
}

enum visit { VISIT_NEW, VISIT_BAD, VISIT_SEEN };

/* Decodes and records the object at addr; *out is its index when new. */
static enum visit visit(struct heap_snapshot *s, uint64_t addr, uint32_t *out)
{
	uint8_t hdr[HEAP_HDR_BYTES];
	struct heap_obj o;
	size_t hint;

	if (s->n >= s->max_objs) {
		s->st.truncated++;
		return VISIT_BAD;
	}
	if (!heap_ptr_ok(&s->ctx, addr) || read_header(s->ctx.mem, addr, hdr) ||
	    heap_obj_decode(&s->ctx, addr, hdr, &o)) {
		s->st.bad_links += !heap_mem_ended(s->ctx.mem);
		return VISIT_BAD;
	}
	if (hashidx_find(&s->idx, &obj_ops, s, addr_hash(addr), &addr, &hint) !=
	    HASHIDX_NONE) {
		s->st.repeats++;
		return VISIT_SEEN;
	}
	heap_claim(s, &o);
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 4096;
		s->objs = xrealloc(s->objs, s->cap * sizeof(*s->objs));
	}
	s->objs[s->n] = o;
	hashidx_add(&s->idx, hint, (uint32_t)s->n);
	*out = (uint32_t)s->n++;
	return VISIT_NEW;
}

/* Follows nextgc from first until NULL, stop (a circular list's start) or
 * a bad link, at most bound objects. */
static void walk_list(struct heap_snapshot *s, uint64_t first, uint64_t stop, uint64_t bound)
{
	uint64_t at = first, n = 0;

	while (at && at != stop && !heap_mem_spent(s->ctx.mem)) {
		uint32_t i;

		if (n++ == bound) {
			s->st.truncated++;
			return;
		}
		switch (visit(s, at, &i)) {
		case VISIT_NEW:
			break;
		case VISIT_SEEN:	/* every object is on one list, once */
			s->st.cycles++;
			return;
		default:
			return;
		}
		at = s->objs[i].next;
	}
}

/* -- The lists --------------------------------------------------------------- */

static void walk_strings(struct heap_snapshot *s, uint64_t bound)
{
	const struct lj_layout *lay = s->ctx.lay;
	uint64_t tab = heap_mem_uint(s->ctx.mem, s->ctx.g + lay->g_strtab, 8);
	uint32_t mask = (uint32_t)heap_mem_uint(s->ctx.mem, s->ctx.g + lay->g_strmask, 4);
	unsigned rs = heap_refsize(&s->ctx);

	if (!tab || mask > MAX_STRMASK || ((uint64_t)mask + 1) * rs > s->ctx.plausible) {
		s->st.bad_links++;
		return;
	}
	s->st.strtab_slots = (uint64_t)mask + 1;
	for (uint64_t i = 0; i <= mask && !heap_mem_spent(s->ctx.mem); i++) {
		uint64_t head = 0;

		if (heap_mem_read(s->ctx.mem, tab + i * rs, &head, rs)) {
			s->st.bad_links += !heap_mem_ended(s->ctx.mem);
			return;
		}
		/* The low bit flags a chain of the secondary hash (src/lj_str.c). */
		walk_list(s, head & ~1ull, 0, bound);
	}
}

/* Open upvalues hang off their thread, sorted by stack slot
 * (src/lj_func.c func_finduv), not off the root list. */
static void walk_open_upvalues(struct heap_snapshot *s, size_t nroot)
{
	for (size_t i = 0; i < nroot; i++) {
		const struct heap_obj *o = &s->objs[i];
		uint64_t first;

		if (o->type != HT_THREAD)
			continue;
		first = heap_ref(&s->ctx, o->addr + s->ctx.lay->L_openupval);
		walk_list(s, first, 0, o->bytes_a / 8 + 1);
	}
}

/* Userdata and cdata with finalizers pending: a circular list whose
 * anchor is its last element (src/lj_gc.c gc_finalize). */
static void walk_mmudata(struct heap_snapshot *s, uint64_t bound)
{
	uint64_t last = heap_ref(&s->ctx, s->ctx.g + s->ctx.lay->g_gc_mmudata);
	uint32_t i;

	if (!last)
		return;
	if (visit(s, last, &i) != VISIT_NEW)
		return;
	walk_list(s, s->objs[i].next, last, bound);
}

/* The shared string buffer can hold megabytes after a big string.rep or
 * concatenation (the GC halves it each cycle, src/lj_gc.c atomic). */
static void read_tmpbuf(struct heap_snapshot *s)
{
	uint64_t sb = s->ctx.g + s->ctx.lay->g_tmpbuf;
	uint64_t e = heap_mem_uint(s->ctx.mem, sb + s->ctx.lay->sbuf_e, 8),
		 b = heap_mem_uint(s->ctx.mem, sb + s->ctx.lay->sbuf_b, 8);

	if (e >= b && e - b <= s->st.gc_total)
		s->st.tmpbuf_bytes = e - b;
	else
		s->st.bad_links++;
}

static void init_ctx(struct heap_snapshot *s, struct mem_reader *mem,
		     const struct lj_layout *lay, uint64_t g)
{
	uint64_t cts;

	s->ctx.lay = lay;
	s->ctx.g = g;
	s->ctx.mem = heap_mem_open(mem);
	cts = lay->g_ctype_state ? heap_ref(&s->ctx, g + lay->g_ctype_state) : 0;
	if (cts) {
		s->ctx.cts_tab = heap_mem_uint(s->ctx.mem, cts, 8);
		s->ctx.cts_top = (uint32_t)heap_mem_uint(s->ctx.mem, cts + 8, 4);
	}
}

int heap_walk(struct mem_reader *mem, const struct lj_layout *lay, uint64_t g,
	      struct heap_snapshot *s, char *why, size_t whylen)
{
	return heap_walk_limited(mem, lay, g, NULL, s, why, whylen);
}

int heap_walk_limited(struct mem_reader *mem, const struct lj_layout *lay, uint64_t g,
		      const struct heap_limits *lim, struct heap_snapshot *s, char *why,
		      size_t whylen)
{
	uint64_t bound, root, mainth;
	uint32_t i;
	int tw = lay->gc64 ? 8 : 4;
	size_t nroot;

	memset(s, 0, sizeof(*s));
	if (!lay->g_strtab) {
		snprintf(why, whylen, "no heap layout for %s", lay->name);
		return -1;
	}
	init_ctx(s, mem, lay, g);
	if (!s->ctx.mem) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	s->st.gc_total = heap_mem_uint(s->ctx.mem, g + lay->g_gc_total, tw);
	s->st.gc_state = (uint8_t)heap_mem_uint(s->ctx.mem, g + lay->g_gc_state, 1);
	root = heap_ref(&s->ctx, g + lay->g_gc_root);
	if (!s->st.gc_total || !root) {
		snprintf(why, whylen, "global_State at %#llx unreadable", (unsigned long long)g);
		heap_snapshot_free(s);
		return -1;
	}
	heap_budget_plan(s, lim);
	bound = s->st.plausible / MIN_OBJ_BYTES + LIST_SLACK;
	s->max_objs = bound;
	walk_list(s, root, 0, bound);
	/* The main thread ends the root list: a list cut short must not lose it. */
	mainth = heap_ref(&s->ctx, g + lay->g_mainthref);
	if (heap_snapshot_find(s, mainth) == HASHIDX_NONE)
		visit(s, mainth, &i);
	nroot = s->n;
	if (!lim || !lim->roots_only) {
		walk_open_upvalues(s, nroot);
		walk_mmudata(s, bound);
		walk_strings(s, bound);
		read_tmpbuf(s);
	}
	heap_claims_overlap(s);
	/* gc.total again, past the cache: how much the heap moved under us. */
	if (mem_read(mem, g + lay->g_gc_total, &s->st.gc_total_end, (size_t)tw))
		s->st.gc_total_end = 0;
	s->st.pages_read = heap_mem_pages_read(s->ctx.mem);
	s->st.bytes_read = heap_mem_bytes_read(s->ctx.mem);
	return 0;
}
