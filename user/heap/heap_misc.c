// SPDX-License-Identifier: MIT
/* Userdata, cdata and traces (src/lj_udata.c, lj_cdata.c, lj_trace.c):
 * sizes as lj_udata_free, lj_cdata_free and lj_trace_free compute them. */
#include "heap/heap_obj.h"

#include "heap/heap_mem.h"
#include "luajit/layout.h"

#define MAX_UDATA	(1ull << 40)
#define CDATA_VECTOR	0x80		/* cdataisv: marked & 0x80 */
#define CT_HASSIZE	5		/* ctype_type(info) <= CT_HASSIZE */
#define CT_ATTRIB	8
#define CTSIZE_PTR	8
#define MAX_ATTRIB_HOPS	8
#define MAX_TRACE_REFS	(1u << 24)

int heap_udata_decode(const struct heap_ctx *c, const uint8_t *hdr, struct heap_obj *o)
{
	uint32_t len = heap_u32_at(hdr, c->lay->ud_len);

	/* MSize len: any value is a possible size. */
	o->bytes = c->lay->sizeof_udata + (uint64_t)len;
	return 0;
}

/* Size of a C type, following attributes as ctype_raw does; -1 unknown. */
static int64_t ctype_bytes(const struct heap_ctx *c, uint32_t id)
{
	const struct lj_layout *lay = c->lay;

	for (int hop = 0; hop < MAX_ATTRIB_HOPS; hop++) {
		uint64_t ct = c->cts_tab + (uint64_t)id * lay->sizeof_ctype;
		uint8_t b[8];
		uint32_t info;

		if (id >= c->cts_top || heap_mem_read(c->mem, ct, b, sizeof(b)))
			return -1;
		info = heap_u32_at(b, 0);
		if ((info >> 28) == CT_ATTRIB) {
			id = info & 0xffff;
			continue;
		}
		return (info >> 28) <= CT_HASSIZE ? heap_u32_at(b, lay->ctype_size) : CTSIZE_PTR;
	}
	return -1;
}

int heap_cdata_decode(const struct heap_ctx *c, const uint8_t *hdr, struct heap_obj *o)
{
	const struct lj_layout *lay = c->lay;
	int64_t sz;

	if (o->marked & CDATA_VECTOR) {
		/* GCcdataVar sits just before the object: offset, extra, len. */
		uint8_t v[8];

		if (heap_mem_read(c->mem, o->addr - 8, v, sizeof(v)))
			return -1;
		o->sub = 1;
		o->bytes = (uint64_t)heap_u32_at(v, 4) + heap_u16_at(v, 2);
		return o->bytes > MAX_UDATA ? -1 : 0;
	}
	if (!c->cts_tab)
		return -1;
	sz = ctype_bytes(c, heap_u16_at(hdr, lay->gct + 1));
	if (sz < 0)
		return -1;
	o->bytes = lay->sizeof_cdata + (uint64_t)sz;
	return 0;
}

int heap_trace_decode(const struct heap_ctx *c, const uint8_t *hdr, struct heap_obj *o)
{
	const struct lj_layout *lay = c->lay;
	uint32_t nins = heap_u32_at(hdr, lay->tr_nins), nk = heap_u32_at(hdr, lay->tr_nk);
	uint32_t nsnapmap = heap_u32_at(hdr, lay->tr_nsnapmap);
	uint16_t nsnap = heap_u16_at(hdr, lay->tr_nsnap);

	if (nins < nk || nins - nk > MAX_TRACE_REFS || nsnapmap > MAX_TRACE_REFS)
		return -1;
	o->bytes = ((lay->sizeof_trace + 7u) & ~7u) + (uint64_t)(nins - nk) * 8 +
		   (uint64_t)nsnap * lay->sizeof_snap + (uint64_t)nsnapmap * 4;
	return 0;
}
