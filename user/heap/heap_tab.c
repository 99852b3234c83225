// SPDX-License-Identifier: MIT
/* Tables (GCtab, src/lj_tab.c): header, array part and hash part, sized
 * as lj_tab_free frees them. */
#include "heap/heap_obj.h"

#include "luajit/layout.h"

#define MAX_ASIZE	((1u << 27) + 1)	/* LJ_MAX_ASIZE (src/lj_def.h) */
#define MAX_HMASK	((1u << 26) - 1)	/* LJ_MAX_HBITS */
#define COLO_MASK	0x7f

int heap_tab_decode(const struct heap_ctx *c, const uint8_t *hdr, struct heap_obj *o)
{
	const struct lj_layout *lay = c->lay;
	uint32_t asize = heap_u32_at(hdr, lay->tab_asize);
	uint32_t hmask = heap_u32_at(hdr, lay->tab_hmask);
	int8_t colo = (int8_t)hdr[lay->tab_colo];
	uint64_t array = heap_ref_at(c, hdr, lay->tab_array);
	uint64_t node = heap_ref_at(c, hdr, lay->tab_node);

	if (asize > MAX_ASIZE || hmask > MAX_HMASK)
		return -1;
	if ((asize && !heap_ptr_ok(c, array)) || !heap_ptr_ok(c, node))
		return -1;
	/* hmask 0 is g->nilnode, shared and never freed. */
	if (hmask) {
		o->bytes_h = (uint64_t)(hmask + 1) * lay->node_size;
		o->at_h = node;
	}
	/* A colocated array (colo > 0) lives in the header's allocation;
	 * colo < 0 marks one that was moved out, leaving the space behind. */
	if (asize && colo <= 0) {
		o->bytes_a = (uint64_t)asize * 8;
		o->at_a = array;
	}
	o->bytes = lay->sizeof_tab;
	if (colo)
		o->bytes += (uint64_t)((uint8_t)colo & COLO_MASK) * 8;
	return 0;
}
