/* Walking every object of a LuaJIT heap from outside, as the GC's sweep
 * would (src/lj_gc.c): the list of all objects from g->gc.root, each
 * thread's open upvalues, the userdata waiting for finalizers and the
 * string table's chains.  The target keeps running: every link is
 * checked (a plausible pointer, a readable header, a known type, sizes
 * in bounds, never seen before) and a bad one ends its list and is
 * counted, never followed.  Every list is bounded. */
#ifndef LBP_HEAP_WALK_H
#define LBP_HEAP_WALK_H

#include <stddef.h>
#include <stdint.h>

#include "base/hashidx.h"
#include "target/heap_obj.h"

struct mem_reader;
struct lj_layout;

struct heap_walk_stats {
	uint64_t gc_total;	/* g->gc.total when the walk began */
	uint64_t gc_total_end;	/* ... and when it ended */
	uint8_t gc_state;	/* GCSpause = 0, ... (src/lj_gc.h) */
	uint64_t bad_links;	/* a link to no plausible object: its list ended */
	uint64_t repeats;	/* a link to an object already seen (a cycle) */
	uint64_t truncated;	/* lists cut at their bound */
	uint64_t strtab_slots;	/* string table anchors */
	uint64_t tmpbuf_bytes;	/* g->tmpbuf, the VM's shared string buffer */
	uint64_t pages_read;
};

/* The objects found: addresses are unique; indexed by address. */
struct heap_snapshot {
	struct heap_obj *objs;
	size_t n, cap;
	uint64_t max_objs;	/* the walk's bound over all lists */
	struct hashidx idx;
	struct heap_ctx ctx;	/* reader and layout, for later reads */
	struct heap_walk_stats st;
};

/* Walks the heap of the VM whose global_State is at g.  The snapshot
 * keeps using mem (and a page cache over it) until heap_snapshot_free.
 * -1 (with why) when the layout has no heap fields or g is unreadable. */
int heap_walk(struct mem_reader *mem, const struct lj_layout *lay, uint64_t g,
	      struct heap_snapshot *snap, char *why, size_t whylen);

/* Index of the object at addr, or HASHIDX_NONE. */
uint32_t heap_snapshot_find(const struct heap_snapshot *snap, uint64_t addr);

void heap_snapshot_free(struct heap_snapshot *snap);

#endif
