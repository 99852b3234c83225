/* SPDX-License-Identifier: MIT */
/* Walking every object of a LuaJIT heap from outside, as the GC's sweep
 * would (src/lj_gc.c): the list of all objects from g->gc.root, each
 * thread's open upvalues, the userdata waiting for finalizers and the
 * string table's chains.  The target keeps running: every link is
 * checked (a plausible pointer, a readable header, a known type, sizes
 * in bounds, never seen before) and a bad one ends its list and is
 * counted, never followed.  Every list is bounded. */
#ifndef LBP_HEAP_WALK_H
#define LBP_HEAP_WALK_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/hashidx.h"
#include "heap/heap_obj.h"

struct mem_reader;
struct lj_layout;

struct heap_walk_stats {
	uint64_t gc_total;	/* g->gc.total when the walk began */
	uint64_t gc_total_end;	/* ... and when it ended */
	uint8_t gc_state;	/* GCSpause = 0, ... (src/lj_gc.h) */
	uint64_t bad_links;	/* a link to no plausible object: its list ended */
	uint64_t cycles;	/* a list led back to an object seen: the rest of it unseen */
	uint64_t repeats;	/* a link to an object already seen (a cycle) */
	uint64_t truncated;	/* lists cut at their bound */
	uint64_t strtab_slots;	/* string table anchors */
	uint64_t tmpbuf_bytes;	/* g->tmpbuf, the VM's shared string buffer */
	uint64_t pages_read;
	uint64_t bytes_read;	/* from the target by the walk */
	uint64_t plausible;	/* what the VM can hold (heap_budget.c) */
	uint64_t inconsistent;	/* objects or parts claiming more than that,
				 * or memory another one claims: not believed */
};

/* What a walk may cost.  Every field may be 0: the defaults then apply. */
struct heap_limits {
	uint64_t resident;		/* the target's RSS + swap, bytes; 0: unknown */
	double max_secs;		/* time for the walk and its reference reads */
	volatile sig_atomic_t *stop;	/* non-zero: end the walk now */
	/* Only the root list, where every thread is (dump): no strings,
	 * open upvalues nor userdata waiting for finalizers. */
	bool roots_only;
};

/* The objects found: addresses are unique; indexed by address. */
struct heap_snapshot {
	struct heap_obj *objs;
	size_t n, cap;
	uint64_t max_objs;	/* the walk's bound over all lists */
	uint64_t claimed;	/* bytes the objects so far claim (heap_budget.c) */
	struct hashidx idx;
	struct heap_ctx ctx;	/* reader and layout, for later reads */
	struct heap_walk_stats st;
};

/* Walks the heap of the VM whose global_State is at g.  The snapshot
 * keeps using mem (and a page cache over it) until heap_snapshot_free.
 * -1 (with why) when the layout has no heap fields or g is unreadable. */
int heap_walk(struct mem_reader *mem, const struct lj_layout *lay, uint64_t g,
	      struct heap_snapshot *snap, char *why, size_t whylen);

/* The same within limits (NULL: the defaults): reads of the target, the
 * walk's and every later one through snap->ctx (heap_refs), stop when the
 * budget derived from the limits is spent; snap->st says why. */
int heap_walk_limited(struct mem_reader *mem, const struct lj_layout *lay, uint64_t g,
		      const struct heap_limits *lim, struct heap_snapshot *snap, char *why,
		      size_t whylen);

/* The limits for a walk of process pid: its RSS and swap from
 * /proc/PID/status, max_secs and stop as given. */
void heap_limits_for(pid_t pid, double max_secs, volatile sig_atomic_t *stop,
		     struct heap_limits *lim);

/* Why a walk stopped early ("the byte budget of N MiB was spent"), or
 * NULL when it did not. */
const char *heap_walk_ended(const struct heap_snapshot *snap, char *buf, size_t len);

/* Index of the object at addr, or HASHIDX_NONE. */
uint32_t heap_snapshot_find(const struct heap_snapshot *snap, uint64_t addr);

void heap_snapshot_free(struct heap_snapshot *snap);

#endif
