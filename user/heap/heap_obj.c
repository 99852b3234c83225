// SPDX-License-Identifier: MIT
/* Shared helpers of the heap object decoders and the dispatch by type. */
#include "heap/heap_obj.h"

#include <string.h>

#include "heap/heap_mem.h"
#include "luajit/layout.h"

#define USER_TOP	(1ull << 47)

unsigned heap_refsize(const struct heap_ctx *c)
{
	return c->lay->gc64 ? 8 : 4;
}

uint64_t heap_ref(const struct heap_ctx *c, uint64_t addr)
{
	return heap_mem_uint(c->mem, addr, (int)heap_refsize(c));
}

uint64_t heap_ref_at(const struct heap_ctx *c, const uint8_t *hdr, unsigned off)
{
	uint64_t v = 0;

	memcpy(&v, hdr + off, heap_refsize(c));
	return v;
}

uint32_t heap_u32_at(const uint8_t *hdr, unsigned off)
{
	uint32_t v;

	memcpy(&v, hdr + off, 4);
	return v;
}

uint16_t heap_u16_at(const uint8_t *hdr, unsigned off)
{
	uint16_t v;

	memcpy(&v, hdr + off, 2);
	return v;
}

bool heap_ptr_ok(const struct heap_ctx *c, uint64_t p)
{
	if (!p || (p & 7))
		return false;
	return c->lay->gc64 ? p < USER_TOP : p < (1ull << 32);
}

int heap_obj_decode(const struct heap_ctx *c, uint64_t addr, const uint8_t *hdr,
		    struct heap_obj *o)
{
	const struct lj_layout *lay = c->lay;

	memset(o, 0, sizeof(*o));
	o->addr = addr;
	o->next = heap_ref_at(c, hdr, 0);
	o->type = hdr[lay->gct];
	o->marked = hdr[lay->gct - 1];
	switch (o->type) {
	case HT_STR:
		return heap_str_decode(c, hdr, o);
	case HT_UPVAL:
		return heap_upval_decode(c, hdr, o);
	case HT_THREAD:
		return heap_thread_decode(c, hdr, o);
	case HT_PROTO:
		return heap_proto_decode(c, hdr, o);
	case HT_FUNC:
		return heap_func_decode(c, hdr, o);
	case HT_TRACE:
		return heap_trace_decode(c, hdr, o);
	case HT_CDATA:
		return heap_cdata_decode(c, hdr, o);
	case HT_TAB:
		return heap_tab_decode(c, hdr, o);
	case HT_UDATA:
		return heap_udata_decode(c, hdr, o);
	default:
		return -1;
	}
}

const char *heap_type_name(int type)
{
	static const char *const names[HT_MAX] = {
		[HT_STR] = "string", [HT_UPVAL] = "upvalue", [HT_THREAD] = "thread",
		[HT_PROTO] = "prototype", [HT_FUNC] = "function", [HT_TRACE] = "trace",
		[HT_CDATA] = "cdata", [HT_TAB] = "table", [HT_UDATA] = "userdata",
	};

	return type >= 0 && type < HT_MAX && names[type] ? names[type] : "?";
}
