// SPDX-License-Identifier: MIT
/* Strings (GCstr, src/lj_str.c): the header and the bytes with their
 * terminator, rounded as lj_str_size rounds them. */
#include "heap/heap_obj.h"

#include "luajit/layout.h"

#define MAX_STR		0x7fffff00u	/* LJ_MAX_STR (src/lj_def.h) */

int heap_str_decode(const struct heap_ctx *c, const uint8_t *hdr, struct heap_obj *o)
{
	uint32_t len = heap_u32_at(hdr, c->lay->str_len);

	if (len > MAX_STR)
		return -1;
	/* sizeof(GCstr) is where the data starts. */
	o->bytes = c->lay->str_data + (((uint64_t)len + 4) & ~3ull);
	return 0;
}
