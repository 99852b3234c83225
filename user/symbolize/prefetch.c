// SPDX-License-Identifier: MIT
/* Prototypes read at first sight: everything a frame of it will need
 * (chunk name, line table, bytecode, the names of its call sites) is
 * copied while it lives, so that its samples are still named after the
 * GC freed it (bpf/protos.bpf.h announces each new one). */
#include "symbolize/symbolize.h"

#include "symbolize/symbolizer_int.h"
#include "luajit/layout.h"
#include "proc/memory.h"

/* Bounds on the work done for one prototype (a chunk's main function can
 * be large): call sites whose names are derived ahead, at most. */
#define PREFETCH_SITES	256

/* GCproto.sizept covers the header, bytecode, constants and debug info:
 * lj_parse.c fs_finish allocates them as one block. */
uint64_t proto_block_end(const struct symbolizer *s, const struct proto_entry *e)
{
	uint64_t end = e->addr + e->sizept;

	if (e->sizept < s->lay->sizeof_proto + 4ull * e->sizebc || e->k > end ||
	    e->lineinfo >= end || e->uvinfo >= end || e->varinfo >= end)
		return 0;
	return end;
}

/* Copies e's parts that frames need while its header reads as it did. */
static void copy_parts(struct symbolizer *s, struct proto_entry *e)
{
	if (e->sizebc > 1)
		line_at(s, e, 1);
	proto_bc(s, e);
	proto_debuginfo(s, e);
}

int sym_prefetch(struct symbolizer *s, uint64_t pt, uint32_t fp, const struct mem_region *copy,
		 size_t ncopy)
{
	struct proto_entry *e = NULL;

	/* From the copy the sampler took while the prototype ran, when it has
	 * one: the prototype may be freed by now. */
	if (ncopy) {
		mem_set_overlay(s->mem, copy, ncopy);
		s->captured = true;
		e = proto_get(s, pt, fp);
		if (e && !e->prefetched)
			copy_parts(s, e);
		s->captured = false;
		mem_set_overlay(s->mem, NULL, 0);
	}
	if (!e)
		e = proto_get(s, pt, fp);
	if (!e)
		return -1;
	if (e->prefetched)
		return 0;
	e->prefetched = true;
	/* Each part is read only while the header still reads the same
	 * (symbolize.c): a prototype that dies meanwhile keeps what was
	 * read of it before, and its samples name what that covers. */
	copy_parts(s, e);
	/* Names of its call sites, with constant strings read from the
	 * process: dropped (symbolize.c proto_same) if it died already. */
	if (e->bc)
		call_sites_all(s, e, PREFETCH_SITES);
	return 0;
}
