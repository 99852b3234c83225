// SPDX-License-Identifier: MIT
/* Path elements of heap references (heap_edge_label, see heap_refs.h). */
#include "heap/heap_refs.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "heap/heap_mem.h"
#include "luajit/layout.h"
#include "luajit/luaobj.h"

#define MAX_NAME	40
#define MAX_UVNAMES	256	/* uvinfo bytes read at most */

/* A string object's first bytes, printable; -1 when unreadable. */
static int read_name(const struct heap_ctx *c, uint64_t str, char *buf, size_t max)
{
	uint32_t len = (uint32_t)heap_mem_uint(c->mem, str + c->lay->str_len, 4);
	size_t n = len < max - 1 ? len : max - 1;

	if (!str || heap_mem_read(c->mem, str + c->lay->str_data, buf, n))
		return -1;
	buf[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if (!isprint((unsigned char)buf[i]) || buf[i] == ';' || buf[i] == '"')
			buf[i] = '?';
	return 0;
}

static int is_ident(const char *s)
{
	if (!*s || isdigit((unsigned char)*s))
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return 0;
	return 1;
}

static void key_label(const struct heap_ctx *c, uint64_t key, char *buf, size_t len)
{
	uint32_t it = lj_tv_itype(c->lay, key);
	uint64_t obj = heap_tv_gcobj(c, key);
	char name[MAX_NAME];
	double d;

	if (it == LJ_TSTR && !read_name(c, obj, name, sizeof(name))) {
		snprintf(buf, len, is_ident(name) ? ".%s" : "[\"%s\"]", name);
	} else if (obj) {
		uint8_t gct = (uint8_t)heap_mem_uint(c->mem, obj + c->lay->gct, 1);

		snprintf(buf, len, "[%s]", heap_type_name(gct));
	} else if (it == LJ_TTRUE || it == LJ_TFALSE) {
		snprintf(buf, len, "[%s]", it == LJ_TTRUE ? "true" : "false");
	} else if (lj_tv_number(c->lay, key, &d)) {
		snprintf(buf, len, "[%.14g]", d);
	} else {
		snprintf(buf, len, "[?]");
	}
}

void heap_proto_where(const struct heap_ctx *c, uint64_t pt, char *buf, size_t len)
{
	unsigned line = (unsigned)heap_mem_uint(c->mem, pt + c->lay->pt_firstline, 4);
	char chunk[MAX_NAME * 2], *file = chunk;

	if (read_name(c, heap_ref(c, pt + c->lay->pt_chunkname), chunk, sizeof(chunk)))
		snprintf(chunk, sizeof(chunk), "?");
	if (*file == '@' || *file == '=')
		file++;
	if (strrchr(file, '/'))
		file = strrchr(file, '/') + 1;
	snprintf(buf, len, "%s:%u", file, line);
}

/* The upvalue's name from the prototype's uvinfo, and "file:line". */
static void upval_label(const struct heap_ctx *c, const struct heap_edge *e, char *buf,
			size_t len)
{
	const struct lj_layout *lay = c->lay;
	uint64_t pt = heap_ref(c, e->owner + lay->fn_pc) - lay->sizeof_proto;
	uint64_t uvinfo = heap_ref(c, pt + lay->pt_uvinfo);
	char names[MAX_UVNAMES], where[MAX_NAME * 2 + 12];
	const char *name = "?";
	size_t got = 0;

	if (uvinfo && !heap_mem_read(c->mem, uvinfo, names, sizeof(names)))
		got = sizeof(names);
	for (size_t at = 0, i = 0; at < got; i++) {
		size_t n = strnlen(names + at, got - at);

		if (at + n == got)
			break;
		if (i == e->key) {
			name = names + at;
			break;
		}
		at += n + 1;
	}
	heap_proto_where(c, pt, where, sizeof(where));
	snprintf(buf, len, "[upvalue %.32s of %s]", name, where);
}

void heap_edge_label(const struct heap_ctx *c, const struct heap_edge *e, char *buf, size_t len)
{
	switch (e->kind) {
	case HE_FIELD: key_label(c, e->key, buf, len); break;
	case HE_ANY: snprintf(buf, len, "[*]"); break;
	case HE_KEY: snprintf(buf, len, "[key]"); break;
	case HE_META: snprintf(buf, len, "[metatable]"); break;
	case HE_ENV: snprintf(buf, len, "[env]"); break;
	case HE_UPVAL: upval_label(c, e, buf, len); break;
	case HE_CUPVAL: snprintf(buf, len, "[upvalue %u]", (unsigned)e->key); break;
	case HE_STACK: snprintf(buf, len, "[stack]"); break;
	case HE_PROTO: snprintf(buf, len, "[prototype]"); break;
	case HE_CONST: snprintf(buf, len, "[constant]"); break;
	default: buf[0] = '\0'; break;
	}
	/* Names come from target memory: keep them printable ASCII (and so
	 * valid UTF-8, as pprof's strings must be), without the folded
	 * format's frame separator (an upvalue's name is read raw above). */
	for (char *p = buf; *p; p++)
		if (!isprint((unsigned char)*p) || *p == ';')
			*p = '?';
}
