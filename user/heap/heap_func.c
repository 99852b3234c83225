// SPDX-License-Identifier: MIT
/* Closures, prototypes and upvalues (src/lj_func.c): sizes as
 * lj_func_free, lj_func_freeproto and lj_func_freeuv free them. */
#include "heap/heap_obj.h"

#include "luajit/layout.h"

#define MAX_UPVAL	255		/* nupvalues is a byte */
#define MAX_SIZEPT	(1u << 30)
#define FF_LUA		0

int heap_func_decode(const struct heap_ctx *c, const uint8_t *hdr, struct heap_obj *o)
{
	const struct lj_layout *lay = c->lay;
	unsigned nup = hdr[lay->fn_nupvalues];

	if (nup > MAX_UPVAL)
		return -1;
	if (hdr[lay->fn_ffid] == FF_LUA) {
		o->bytes = lay->sizeof_fnl0 + (uint64_t)nup * heap_refsize(c);
	} else {
		o->sub = 1;
		o->bytes = lay->sizeof_fnc0 + (uint64_t)nup * 8;
	}
	return 0;
}

int heap_proto_decode(const struct heap_ctx *c, const uint8_t *hdr, struct heap_obj *o)
{
	uint32_t sizept = heap_u32_at(hdr, c->lay->pt_sizept);

	if (sizept < c->lay->sizeof_proto || sizept > MAX_SIZEPT)
		return -1;
	o->bytes = sizept;
	return 0;
}

int heap_upval_decode(const struct heap_ctx *c, const uint8_t *hdr, struct heap_obj *o)
{
	if (hdr[c->lay->uv_closed] > 1)
		return -1;
	o->sub = hdr[c->lay->uv_closed];
	o->bytes = c->lay->sizeof_upval;
	return 0;
}
