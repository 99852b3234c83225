// SPDX-License-Identifier: MIT
/* Counting a walked heap by kind (see heap_census.h). */
#include "model/heap_census.h"

#include <string.h>

#include "heap/heap_walk.h"
#include "luajit/layout.h"

enum heap_kind heap_kind_of(const struct heap_snapshot *snap, uint32_t i)
{
	const struct heap_obj *o = &snap->objs[i];

	switch (o->type) {
	case HT_TAB: return HK_TABLE;
	case HT_STR: return HK_STRING;
	case HT_FUNC: return o->sub ? HK_CFUNC : HK_LFUNC;
	case HT_PROTO: return HK_PROTO;
	case HT_UPVAL: return HK_UPVAL;
	case HT_UDATA: return HK_UDATA;
	case HT_CDATA: return HK_CDATA;
	case HT_THREAD: return HK_THREAD;
	default: return HK_TRACE;
	}
}

uint64_t heap_obj_bytes(const struct heap_snapshot *snap, uint32_t i)
{
	const struct heap_obj *o = &snap->objs[i];

	return o->bytes + o->bytes_a + o->bytes_h;
}

void heap_census_count(const struct heap_snapshot *snap, struct heap_census *c)
{
	memset(c, 0, sizeof(*c));
	for (uint32_t i = 0; i < snap->n; i++) {
		struct heap_kind_row *r = &c->kind[heap_kind_of(snap, i)];
		const struct heap_obj *o = &snap->objs[i];

		r->count++;
		r->bytes += heap_obj_bytes(snap, i);
		r->bytes_a += o->bytes_a;
		r->bytes_h += o->bytes_h;
		c->objects++;
		c->bytes += heap_obj_bytes(snap, i);
	}
	c->gc_total = snap->st.gc_total;
	c->strtab_bytes = snap->st.strtab_slots * (snap->ctx.lay->gc64 ? 8 : 4);
	c->tmpbuf_bytes = snap->st.tmpbuf_bytes;
	c->accounted = c->bytes + c->strtab_bytes + c->tmpbuf_bytes;
}

const char *heap_kind_name(enum heap_kind k)
{
	static const char *const names[HK_NKINDS] = {
		"table", "string", "Lua function", "C function", "prototype", "upvalue",
		"userdata", "cdata", "thread", "trace",
	};

	return k < HK_NKINDS ? names[k] : "?";
}
