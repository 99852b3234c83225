/* SPDX-License-Identifier: MIT */
/* Reference paths: every object of a walked heap attributed to the path a
 * reader knows best among those reaching it from the roots: first what
 * the globals (_G, the main thread's environment) and the registry
 * (package.loaded) reach, then what a named local variable of a thread's
 * stack reaches ("[main.lua:0 local users]"), then what anonymous stack
 * slots reach ("[stack]"); breadth first within each, as the GC's mark
 * phase goes (src/lj_gc.c gc_mark_start).  How many other paths reach a
 * path's objects is kept, with the first of them.
 * A path is a chain of elements (".users", "[*]", "[metatable]",
 * "[upvalue s of f.lua:3]"); paths are interned, so the 100,000 records
 * of one cache share one path, `_G.app.cache.users[*]`. */
#ifndef LBP_HEAP_PATHS_H
#define LBP_HEAP_PATHS_H

#include <stddef.h>
#include <stdint.h>

#include "base/hashidx.h"

struct heap_snapshot;

#define HEAP_PATH_NONE		UINT32_MAX
#define HEAP_PATH_MAX_DEPTH	24	/* deeper objects stay on their ancestor's path */

struct heap_path {
	uint32_t parent;	/* HEAP_PATH_NONE for a root */
	uint32_t label;		/* offset in the label pool */
	uint32_t depth;
	uint64_t self_bytes, self_count;	/* objects first reached by this path */
	uint64_t held_bytes, held_count;	/* ... by it and every path under it */
	uint32_t others;	/* other paths reaching the objects it names */
	uint32_t other;		/* the first of them, or HEAP_PATH_NONE */
};

struct heap_paths {
	struct heap_path *p;
	size_t n, cap;
	char *pool;
	size_t pool_len, pool_cap;
	struct hashidx idx;
	uint32_t *obj_path;	/* per snapshot object */
	uint32_t unreached;	/* the path of objects no root reaches */
	struct hashidx other_idx;	/* over other_pairs: (path, other) seen */
	uint64_t *other_pairs;
	size_t nother, other_cap;
};

/* Walks the references of snap from its roots; 0, or -1 out of memory. */
int heap_paths_build(const struct heap_snapshot *snap, struct heap_paths *hp);

/* The whole path: its elements joined by sep ("" for text, giving
 * "_G.app.cache.users[*]"; ";" for folded stacks). */
void heap_path_name(const struct heap_paths *hp, uint32_t path, const char *sep, char *buf,
		    size_t len);

const char *heap_path_label(const struct heap_paths *hp, uint32_t path);

/* Other paths reaching path's objects, those of the nearest path (itself
 * or an ancestor) that has any, and in buf the first of them, named down
 * to path ("[main thread][main.lua:0 local users][*]" for
 * _G.app.cache.users[*]); 0 and "" when none.  A path through an object
 * itself (_G._G) is a cycle, not counted. */
uint32_t heap_path_others(const struct heap_paths *hp, uint32_t path, char *buf, size_t len);

void heap_paths_free(struct heap_paths *hp);

#endif
