/* SPDX-License-Identifier: MIT */
/* The heap census: objects of a walked heap (heap/heap_walk.h) counted
 * and sized per kind, next to the VM's own count (g->gc.total). */
#ifndef LBP_HEAP_CENSUS_H
#define LBP_HEAP_CENSUS_H

#include <stdint.h>

struct heap_snapshot;

enum heap_kind {
	HK_TABLE, HK_STRING, HK_LFUNC, HK_CFUNC, HK_PROTO, HK_UPVAL, HK_UDATA,
	HK_CDATA, HK_THREAD, HK_TRACE,
	HK_NKINDS
};

struct heap_kind_row {
	uint64_t count;
	uint64_t bytes;		/* all of it: header + parts */
	uint64_t bytes_a;	/* tables: array parts; threads: stacks */
	uint64_t bytes_h;	/* tables: hash parts */
};

struct heap_census {
	struct heap_kind_row kind[HK_NKINDS];
	uint64_t objects, bytes;	/* sums over the kinds */
	uint64_t gc_total;		/* the VM's count, as the walk began */
	uint64_t strtab_bytes;		/* the string table's anchors */
	uint64_t tmpbuf_bytes;		/* the VM's string buffer */
	uint64_t accounted;		/* bytes + strtab_bytes + tmpbuf_bytes */
};

/* The kind of one object of the snapshot. */
enum heap_kind heap_kind_of(const struct heap_snapshot *snap, uint32_t i);
/* Bytes of one object, all its parts. */
uint64_t heap_obj_bytes(const struct heap_snapshot *snap, uint32_t i);

void heap_census_count(const struct heap_snapshot *snap, struct heap_census *c);

/* "table", "string", "Lua function", ... */
const char *heap_kind_name(enum heap_kind k);

#endif
