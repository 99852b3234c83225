// SPDX-License-Identifier: MIT
/* References out of heap objects (see heap_refs.h). */
#include "heap/heap_refs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heap/heap_mem.h"
#include "luajit/layout.h"
#include "luajit/luaobj.h"

#define MAX_VEC_BYTES	(256u << 20)	/* a table part read at most */
#define MAX_LABEL_STR	40

uint64_t heap_tv_gcobj(const struct heap_ctx *c, uint64_t tv)
{
	uint32_t it = lj_tv_itype(c->lay, tv);

	return it >= LJ_TUDATA && it <= LJ_TSTR ? lj_tv_gcptr(c->lay, tv) : 0;
}

/* Reads n bytes at addr into a new buffer; NULL when unreadable. */
static uint8_t *read_vec(const struct heap_ctx *c, uint64_t addr, uint64_t n)
{
	uint8_t *b;

	/* The walk held parts to what the VM can hold; the budget holds
	 * the sum of them. */
	if (!n || n > MAX_VEC_BYTES || n > heap_mem_bytes_left(c->mem) || !(b = malloc(n)))
		return NULL;
	if (heap_mem_read(c->mem, addr, b, n)) {
		free(b);
		return NULL;
	}
	return b;
}

static uint64_t tv_at(const uint8_t *b, uint64_t off)
{
	uint64_t v;

	memcpy(&v, b + off, 8);
	return v;
}

static void emit(heap_edge_fn fn, void *ud, uint64_t child, uint8_t kind, uint64_t key,
		 uint64_t owner)
{
	struct heap_edge e = { child, kind, key, owner };

	if (child)
		fn(ud, &e);
}

static void refs_tab(const struct heap_ctx *c, const struct heap_obj *o, heap_edge_fn fn,
		     void *ud)
{
	const struct lj_layout *lay = c->lay;
	uint64_t asize = heap_mem_uint(c->mem, o->addr + lay->tab_asize, 4);
	uint64_t hmask = heap_mem_uint(c->mem, o->addr + lay->tab_hmask, 4);
	uint8_t *arr = NULL, *nodes = NULL;
	unsigned used = 0;

	emit(fn, ud, heap_ref(c, o->addr + lay->tab_meta), HE_META, 0, 0);
	/* The table may have changed since the walk sized it: read no more
	 * than the parts it had then (separate, or colocated in the header). */
	if (asize * 8 <= o->bytes_a + (o->bytes - lay->sizeof_tab))
		arr = read_vec(c, heap_ref(c, o->addr + lay->tab_array), asize * 8);
	if ((hmask + 1) * lay->node_size != o->bytes_h)
		hmask = 0;
	for (uint64_t i = 0; arr && i < asize; i++)
		emit(fn, ud, heap_tv_gcobj(c, tv_at(arr, i * 8)), HE_ANY, 0, 0);
	free(arr);
	if (hmask)
		nodes = read_vec(c, heap_ref(c, o->addr + lay->tab_node),
				 (hmask + 1) * lay->node_size);
	for (uint64_t i = 0; nodes && i <= hmask; i++)
		if (lj_tv_itype(lay, tv_at(nodes, i * lay->node_size)) != LJ_TNIL)
			used++;
	for (uint64_t i = 0; nodes && i <= hmask; i++) {
		uint64_t val = tv_at(nodes, i * lay->node_size);
		uint64_t key = tv_at(nodes, i * lay->node_size + lay->node_key);

		if (lj_tv_itype(lay, val) == LJ_TNIL)
			continue;	/* nil: a free or dead slot */
		emit(fn, ud, heap_tv_gcobj(c, key), HE_KEY, 0, 0);
		emit(fn, ud, heap_tv_gcobj(c, val), used > HEAP_NAMED_KEYS ? HE_ANY : HE_FIELD,
		     key, 0);
	}
	free(nodes);
}

static void refs_func(const struct heap_ctx *c, const struct heap_obj *o, heap_edge_fn fn,
		      void *ud)
{
	const struct lj_layout *lay = c->lay;
	unsigned nup = (unsigned)heap_mem_uint(c->mem, o->addr + lay->fn_nupvalues, 1);

	emit(fn, ud, heap_ref(c, o->addr + lay->fn_env), HE_ENV, 0, 0);
	if (o->sub) {
		for (unsigned i = 0; i < nup; i++)
			emit(fn, ud, heap_tv_gcobj(c, heap_mem_uint(c->mem, o->addr + lay->fn_upvalue + 8u * i, 8)),
			     HE_CUPVAL, i + 1, 0);
		return;
	}
	for (unsigned i = 0; i < nup; i++)
		emit(fn, ud, heap_ref(c, o->addr + lay->fn_uvptr + heap_refsize(c) * i), HE_UPVAL,
		     i, o->addr);
	/* The prototype sits just before its bytecode (src/lj_obj.h funcproto). */
	emit(fn, ud, heap_ref(c, o->addr + lay->fn_pc) - lay->sizeof_proto, HE_PROTO, 0, 0);
}

static void refs_proto(const struct heap_ctx *c, const struct heap_obj *o, heap_edge_fn fn,
		       void *ud)
{
	const struct lj_layout *lay = c->lay;
	uint64_t k = heap_ref(c, o->addr + lay->pt_k);
	uint64_t n = heap_mem_uint(c->mem, o->addr + lay->pt_sizekgc, 4), rs = heap_refsize(c);
	/* The constants lie in the prototype's own block. */
	uint8_t *kgc = n <= k / rs && n * rs <= o->bytes ? read_vec(c, k - n * rs, n * rs) : NULL;

	emit(fn, ud, heap_ref(c, o->addr + lay->pt_chunkname), HE_CONST, 0, 0);
	for (uint64_t i = 0; kgc && i < n; i++) {
		uint64_t v = 0;

		memcpy(&v, kgc + i * rs, rs);
		emit(fn, ud, v, HE_CONST, 0, 0);
	}
	free(kgc);
}

static void refs_thread(const struct heap_ctx *c, const struct heap_obj *o, heap_edge_fn fn,
			void *ud)
{
	const struct lj_layout *lay = c->lay;
	uint64_t stack = heap_ref(c, o->addr + lay->L_stack);
	uint64_t top = heap_mem_uint(c->mem, o->addr + lay->L_top, 8);
	uint8_t *slots = top > stack && top - stack <= o->bytes_a ?
			 read_vec(c, stack, top - stack) : NULL;

	emit(fn, ud, heap_ref(c, o->addr + lay->L_env), HE_ENV, 0, 0);
	for (uint64_t off = 0; slots && off + 8 <= top - stack; off += 8)
		emit(fn, ud, heap_tv_gcobj(c, tv_at(slots, off)), HE_STACK, off / 8, 0);
	free(slots);
}

void heap_refs(const struct heap_ctx *c, const struct heap_obj *o, heap_edge_fn fn, void *ud)
{
	const struct lj_layout *lay = c->lay;

	switch (o->type) {
	case HT_TAB:
		refs_tab(c, o, fn, ud);
		break;
	case HT_FUNC:
		refs_func(c, o, fn, ud);
		break;
	case HT_PROTO:
		refs_proto(c, o, fn, ud);
		break;
	case HT_THREAD:
		refs_thread(c, o, fn, ud);
		break;
	case HT_UPVAL:
		if (o->sub)	/* closed: the value lives in the upvalue */
			emit(fn, ud, heap_tv_gcobj(c, heap_mem_uint(c->mem, o->addr + lay->uv_tv, 8)),
			     HE_VALUE, 0, 0);
		break;
	case HT_TRACE:	/* the prototype it starts in (src/lj_gc.c gc_traverse_trace) */
		emit(fn, ud, heap_ref(c, o->addr + lay->tr_startpt), HE_PROTO, 0, 0);
		break;
	case HT_UDATA:
		emit(fn, ud, heap_ref(c, o->addr + lay->tab_meta), HE_META, 0, 0);
		emit(fn, ud, heap_ref(c, o->addr + lay->ud_env), HE_ENV, 0, 0);
		break;
	default:
		break;
	}
}
