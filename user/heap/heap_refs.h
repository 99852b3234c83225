/* SPDX-License-Identifier: MIT */
/* The references out of one heap object, in the order the GC's mark phase
 * follows them (src/lj_gc.c gc_traverse_tab, _func, _proto, _thread):
 * what a breadth-first walk from the roots needs to name every object by
 * the first path that reaches it (model/heap_paths.h). */
#ifndef LBP_HEAP_REFS_H
#define LBP_HEAP_REFS_H

#include <stddef.h>
#include <stdint.h>

#include "heap/heap_obj.h"

enum heap_edge_kind {
	HE_FIELD,	/* t[key] = child, key shown (.name, ["x y"], [3], [table]) */
	HE_ANY,		/* t[*]: an array slot, or a key of a big table */
	HE_KEY,		/* child is a key of the table */
	HE_META,	/* [metatable] */
	HE_ENV,		/* [env] */
	HE_UPVAL,	/* [upvalue NAME of FILE:LINE]: child is the GCupval */
	HE_CUPVAL,	/* [upvalue N] of a C function */
	HE_VALUE,	/* an upvalue's value: the upvalue's own path */
	HE_STACK,	/* [stack] of a thread: key is the slot's index */
	HE_PROTO,	/* [prototype] of a Lua function */
	HE_CONST,	/* [constant] of a prototype (strings, tables, inner protos) */
};

struct heap_edge {
	uint64_t child;
	uint8_t kind;
	uint64_t key;		/* HE_FIELD: the key's TValue; HE_UPVAL/CUPVAL: the index */
	uint64_t owner;		/* HE_UPVAL: the function */
};

typedef void (*heap_edge_fn)(void *ud, const struct heap_edge *e);

/* Calls fn for each reference to a GC object out of o.  Tables with more
 * than HEAP_NAMED_KEYS entries in their hash part report HE_ANY for all. */
#define HEAP_NAMED_KEYS	256
void heap_refs(const struct heap_ctx *c, const struct heap_obj *o, heap_edge_fn fn, void *ud);

/* The path element of an edge (".name", "[*]", "[upvalue s of f.lua:3]"). */
void heap_edge_label(const struct heap_ctx *c, const struct heap_edge *e, char *buf, size_t len);

/* "file:line" of the prototype at pt ("heap_known.lua:16"; main chunks
 * are line 0), for naming what a function holds. */
void heap_proto_where(const struct heap_ctx *c, uint64_t pt, char *buf, size_t len);

/* The GC object a TValue points to, or 0 for a number, nil, boolean ... */
uint64_t heap_tv_gcobj(const struct heap_ctx *c, uint64_t tv);

#endif
