// SPDX-License-Identifier: MIT
/* Short values of locals for `dump --locals` (see dump_thread.h): what a
 * TValue holds, by its type tag (src/lj_obj.h), read from the target. */
#include "heap/dump_thread.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heap/heap_mem.h"
#include "heap/heap_refs.h"
#include "luajit/layout.h"
#include "heap/lua_frames.h"
#include "luajit/luaobj.h"

#define MAX_COUNTED	65536u		/* table slots counted at most */

/* "abc" with what cannot print as '?', cut to width bytes ("..." then). */
static void put_string(const struct heap_ctx *c, uint64_t str, size_t width, char *buf,
		       size_t len)
{
	uint32_t n = (uint32_t)heap_mem_uint(c->mem, str + c->lay->str_len, 4);
	char s[DUMP_VALUE];
	size_t take = n;

	if (width > sizeof(s) - 8)
		width = sizeof(s) - 8;
	if (take > width)
		take = width;
	if (heap_mem_read(c->mem, str + c->lay->str_data, s, take)) {
		snprintf(buf, len, "string: (unreadable)");
		return;
	}
	for (size_t i = 0; i < take; i++)
		if (!isprint((unsigned char)s[i]) || s[i] == '"' || s[i] == '\\')
			s[i] = '?';
	s[take] = '\0';
	snprintf(buf, len, "\"%s\"%s", s, take < n ? "..." : "");
}

/* Non-nil values among n TValues of stride bytes at at. */
static uint32_t count_used(const struct heap_ctx *c, uint64_t at, uint32_t n, unsigned stride,
			   bool *bad)
{
	uint8_t *b;
	uint32_t used = 0;

	if (!n)
		return 0;
	if (!at || !(b = malloc((size_t)n * stride)) || heap_mem_read(c->mem, at, b, (size_t)n * stride)) {
		*bad = true;
		if (at)
			free(b);
		return 0;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint64_t tv;

		memcpy(&tv, b + (size_t)i * stride, 8);
		used += lj_tv_itype(c->lay, tv) != LJ_TNIL;
	}
	free(b);
	return used;
}

static void put_table(const struct heap_ctx *c, uint64_t t, char *buf, size_t len)
{
	const struct lj_layout *lay = c->lay;
	uint32_t asize = (uint32_t)heap_mem_uint(c->mem, t + lay->tab_asize, 4);
	uint32_t hmask = (uint32_t)heap_mem_uint(c->mem, t + lay->tab_hmask, 4);
	bool bad = false;
	uint32_t used;

	if (asize > MAX_COUNTED || hmask >= MAX_COUNTED) {
		snprintf(buf, len, "table: %#llx (%u array, %llu hash slots)", (unsigned long long)t,
			 asize, (unsigned long long)hmask + 1);
		return;
	}
	used = count_used(c, heap_ref(c, t + lay->tab_array), asize, 8, &bad) +
	       count_used(c, heap_ref(c, t + lay->tab_node), hmask + 1, lay->node_size, &bad);
	if (bad)
		snprintf(buf, len, "table: %#llx (entries unreadable)", (unsigned long long)t);
	else
		snprintf(buf, len, "table: %#llx (%u entries)", (unsigned long long)t, used);
}

static void put_function(const struct heap_ctx *c, uint64_t fn, char *buf, size_t len)
{
	uint64_t pt = lua_frames_proto(c, fn);
	uint8_t ffid = (uint8_t)heap_mem_uint(c->mem, fn + c->lay->fn_ffid, 1);
	char where[96];

	if (pt) {
		heap_proto_where(c, pt, where, sizeof(where));
		snprintf(buf, len, "function: %s", where);
	} else if (ffid > 1) {
		snprintf(buf, len, "function: builtin#%u", ffid);
	} else {
		snprintf(buf, len, "function: C %#llx",
			 (unsigned long long)heap_mem_uint(c->mem, fn + c->lay->fn_cfunc, 8));
	}
}

void dump_value_short(const struct heap_ctx *c, uint64_t tv, size_t width, char *buf,
		      size_t len)
{
	uint32_t it = lj_tv_itype(c->lay, tv);
	uint64_t obj = heap_tv_gcobj(c, tv);
	double d;

	if (lj_tv_number(c->lay, tv, &d)) {
		snprintf(buf, len, "%.14g", d);
		return;
	}
	switch (it) {
	case LJ_TNIL: snprintf(buf, len, "nil"); return;
	case LJ_TFALSE: snprintf(buf, len, "false"); return;
	case LJ_TTRUE: snprintf(buf, len, "true"); return;
	case LJ_TLIGHTUD: snprintf(buf, len, "userdata: light"); return;
	default: break;
	}
	if (!obj || !heap_ptr_ok(c, obj)) {
		snprintf(buf, len, "? (tag %#x)", it);
		return;
	}
	switch (it) {
	case LJ_TSTR: put_string(c, obj, width, buf, len); break;
	case LJ_TTAB: put_table(c, obj, buf, len); break;
	case LJ_TFUNC: put_function(c, obj, buf, len); break;
	case LJ_TTHREAD: snprintf(buf, len, "thread: %#llx", (unsigned long long)obj); break;
	case LJ_TCDATA: snprintf(buf, len, "cdata: %#llx", (unsigned long long)obj); break;
	case LJ_TUDATA: snprintf(buf, len, "userdata: %#llx", (unsigned long long)obj); break;
	default: snprintf(buf, len, "%s: %#llx", heap_type_name((int)~it), (unsigned long long)obj);
	}
}
