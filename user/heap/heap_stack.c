// SPDX-License-Identifier: MIT
/* Names of a thread's stack slots (see heap_stack.h): each Lua frame's
 * slots, from its base up, are its local variables at the frame's
 * position (the instruction before its saved PC), in varinfo's order. */
#include "heap/heap_stack.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heap/heap_mem.h"
#include "heap/heap_refs.h"
#include "luajit/layout.h"
#include "heap/lua_frames.h"
#include "luajit/varinfo.h"

struct frame_names {
	const struct heap_ctx *c;
	uint64_t stack;
	char (*names)[HEAP_SLOT_NAME];
	size_t n;
	uint8_t *vi;		/* varinfo of the function being named */
};

/* Names the slots [f->base, f->hi) of one frame. */
static int name_frame(void *ud, const struct lua_frame_at *f)
{
	struct frame_names *w = ud;
	const struct heap_ctx *c = w->c;
	uint64_t pt = f->pc ? lua_frames_proto(c, f->fn) : 0;
	int64_t pos;
	uint32_t len;
	char where[64];

	if (!pt || (len = heap_proto_varinfo(c, pt, w->vi)) == 0 ||
	    (pos = heap_proto_pos(c, pt, f->pc)) < 0)
		return 0;
	heap_proto_where(c, pt, where, sizeof(where));
	for (uint64_t s = f->base; s < f->hi; s += 8) {
		uint64_t i = (s - w->stack) / 8;
		const char *name = varinfo_local(w->vi, len, (uint32_t)pos,
						 (uint32_t)((s - f->base) / 8));

		if (name && i < w->n)
			snprintf(w->names[i], HEAP_SLOT_NAME, "%.48s local %.40s", where, name);
	}
	return 0;
}

void heap_stack_names(const struct heap_ctx *c, uint64_t L, char (*names)[HEAP_SLOT_NAME],
		      size_t n)
{
	struct frame_names w = { c, heap_ref(c, L + c->lay->L_stack), names, n, malloc(VARINFO_MAX) };
	uint64_t top = heap_mem_uint(c->mem, L + c->lay->L_top, 8);

	memset(names, 0, n * sizeof(*names));
	if (w.vi && top >= w.stack && (top - w.stack) / 8 <= n)
		lua_frames_walk(c, L, name_frame, &w, NULL);
	free(w.vi);
}

int64_t heap_proto_pos(const struct heap_ctx *c, uint64_t pt, uint64_t pc)
{
	uint64_t bc = pt + c->lay->sizeof_proto;
	uint32_t sizebc = (uint32_t)heap_mem_uint(c->mem, pt + c->lay->pt_sizebc, 4);

	if (pc <= bc || pc > bc + 4ull * sizebc || (pc - bc) & 3)
		return -1;
	return (int64_t)((pc - bc) / 4) - 1;
}

uint32_t heap_proto_varinfo(const struct heap_ctx *c, uint64_t pt, uint8_t *vi)
{
	uint32_t sizept = (uint32_t)heap_mem_uint(c->mem, pt + c->lay->pt_sizept, 4);
	uint64_t at = heap_ref(c, pt + c->lay->pt_varinfo), end = pt + sizept;

	if (!at || at >= end || end - at > VARINFO_MAX || heap_mem_read(c->mem, at, vi, end - at))
		return 0;
	return (uint32_t)(end - at);
}
