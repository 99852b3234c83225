// SPDX-License-Identifier: MIT
/* Names of C and fast functions from the tables that hold them.
 *
 * Roots: the registry's _LOADED table (what package.loaded is; src/lib_package.c
 * and src/lj_lib.c lj_lib_register put every library there), and through
 * its "_G" entry the global table.  A library table's function entries are
 * named "lib.key", the global table's plain "key", and tables below them
 * one level down ("ngx.req.get_headers").  Then the registry itself: the
 * metatables C code keeps there are classes, their methods "Class.key"
 * (walk_class).  A function value is a GCfuncC
 * (src/lj_obj.h): ffid 1 (FF_C) is a lua_CFunction named by its address,
 * any higher ffid a fast function named by its id.
 */
#include "symbolize/luanames.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashfn.h"
#include "base/hashidx.h"
#include "base/xalloc.h"
#include "luajit/layout.h"
#include "luajit/luaobj.h"
#include "proc/memory.h"

/* A light userdata's payload: the low 47 bits of its TValue (lj_obj.h). */
#define LIGHTUD_MASK	LJ_GCVMASK
#define FF_C		1

#define MAX_DEPTH	3		/* _G -> ngx -> req -> get_headers */
#define MAX_HMASK	65535		/* nodes of one table read at most */
/* A walk runs in the drain path: a few ms at most, whatever the program
 * keeps in its global tables (a cache of 100k entries is skipped). */
#define MAX_TABLES	1024		/* tables walked per walk */
#define MAX_NODES	(1u << 17)	/* nodes read per walk */
#define MAX_KEY		64		/* longer keys are not names */
#define MAX_NAME	160
#define MAX_UPVALUES	16		/* upvalues of one closure looked at */

#define KEY_FF		(1ull << 63)	/* fast functions: ffid | KEY_FF */

/* Where a name was found: a library (or a table of the global table), a
 * class (a metatable the registry holds), an upvalue of the closure of
 * that name, a global variable. */
enum name_kind { NAME_LIB, NAME_CLASS, NAME_UPVALUE, NAME_GLOBAL };

struct name_slot {
	uint64_t key;
	char *name;
	int rank;		/* lower wins: see name_rank */
};

/* Function -> name, by hashidx over the entries. */
struct name_map {
	struct name_slot *e;
	uint32_t n, cap;
	struct hashidx idx;
};

struct lua_names {
	struct mem_reader *mem;
	const struct lj_layout *lay;
	uint64_t g;
	struct name_map map;
	unsigned walks;
	/* Budget of the walk under way. */
	unsigned tables, nodes;
	uint64_t global;	/* the global table: never a library ("_G.print") */
};

struct lua_names *luanames_new(struct mem_reader *mem, const struct lj_layout *lay, uint64_t g)
{
	struct lua_names *ln = calloc(1, sizeof(*ln));

	if (!ln)
		return NULL;
	ln->mem = mem;
	ln->lay = lay;
	ln->g = g;
	return ln;
}

static void map_free(struct name_map *m)
{
	for (uint32_t i = 0; i < m->n; i++)
		free(m->e[i].name);
	free(m->e);
	hashidx_free(&m->idx);
	memset(m, 0, sizeof(*m));
}

void luanames_free(struct lua_names *ln)
{
	if (!ln)
		return;
	map_free(&ln->map);
	free(ln);
}

unsigned luanames_walks(const struct lua_names *ln)
{
	return ln ? ln->walks : 0;
}

/* ------------------------------------------------------------------------ */
/* The name map */

static uint64_t slot_hash(const void *ctx, uint32_t e)
{
	return hash_u64(((const struct name_map *)ctx)->e[e].key, 0);
}

static bool slot_match(const void *ctx, uint32_t e, const void *key)
{
	return ((const struct name_map *)ctx)->e[e].key == *(const uint64_t *)key;
}

static const struct hashidx_ops slot_ops = { slot_hash, slot_match };

/* A library's name ("ngx.say" from package.loaded.ngx or _G.ngx) before a
 * class's (a method of a metatable in the registry), before the name of
 * the closure that holds a function as an upvalue, before a plain
 * global's (say = ngx.say), then the fewest dots. */
static int name_rank(const char *name, enum name_kind kind)
{
	static const int base[] = { [NAME_LIB] = 0, [NAME_CLASS] = 300, [NAME_UPVALUE] = 600 };
	int dots = 0;

	for (const char *p = name; *p; p++)
		dots += *p == '.';
	if (kind == NAME_GLOBAL)
		return dots ? dots : 1000;
	return base[kind] + dots;
}

static bool better_name(const char *name, int rank, const struct name_slot *have)
{
	return rank < have->rank || (rank == have->rank && strcmp(name, have->name) < 0);
}

static void map_put(struct lua_names *ln, uint64_t key, const char *name, enum name_kind kind)
{
	struct name_map *m = &ln->map;
	struct name_slot *slot;
	int rank = name_rank(name, kind);
	uint32_t e;
	size_t hint;

	e = hashidx_find(&m->idx, &slot_ops, m, hash_u64(key, 0), &key, &hint);
	if (e != HASHIDX_NONE) {
		slot = &m->e[e];
		if (!better_name(name, rank, slot))
			return;
		free(slot->name);
	} else {
		if (m->n == m->cap) {
			m->cap = m->cap ? m->cap * 2 : 256;
			m->e = xrealloc(m->e, m->cap * sizeof(*m->e));
		}
		hashidx_add(&m->idx, hint, m->n);
		slot = &m->e[m->n++];
		slot->key = key;
	}
	slot->name = xstrdup(name);
	slot->rank = rank;
}

static const char *map_get(const struct lua_names *ln, uint64_t key)
{
	uint32_t e;

	if (!ln || !key)
		return NULL;
	e = hashidx_get(&ln->map.idx, &slot_ops, &ln->map, hash_u64(key, 0), &key);
	return e == HASHIDX_NONE ? NULL : ln->map.e[e].name;
}

const char *luanames_cfunc(const struct lua_names *ln, uint64_t cfunc)
{
	return cfunc & KEY_FF ? NULL : map_get(ln, cfunc);
}

const char *luanames_ff(const struct lua_names *ln, int ffid)
{
	return ffid > FF_C ? map_get(ln, KEY_FF | (uint64_t)ffid) : NULL;
}

/* ------------------------------------------------------------------------ */
/* Validated reads */

/* The GC type tag of the object at addr, or -1. */
static int gc_type(struct lua_names *ln, uint64_t addr)
{
	uint8_t gct;

	if (!addr || mem_read(ln->mem, addr + ln->lay->gct, &gct, 1))
		return -1;
	return gct;
}

/* A string key usable in a name: a string object of a sane length whose
 * bytes are printable and hold no separator. */
static bool read_key(struct lua_names *ln, uint64_t str, char *buf, size_t max)
{
	uint8_t h[32];
	uint32_t len;

	if (!str || ln->lay->str_data > sizeof(h) || mem_read(ln->mem, str, h, ln->lay->str_data) ||
	    h[ln->lay->gct] != LJ_GCT(LJ_TSTR))
		return false;
	memcpy(&len, h + ln->lay->str_len, 4);
	if (!len || len >= max || mem_read(ln->mem, str + ln->lay->str_data, buf, len))
		return false;
	buf[len] = '\0';
	for (uint32_t i = 0; i < len; i++)
		if (buf[i] <= ' ' || buf[i] >= 0x7f)
			return false;
	return strlen(buf) == len;
}

static void record_func(struct lua_names *ln, uint64_t fn, const char *name, enum name_kind kind);

/* The functions closure fn (ffid: FF_C for a C closure, 0 for a Lua one)
 * holds as upvalues, named after it: a class whose method a Lua wrapper
 * replaced keeps the C method only there (luakit's webview.lua sets
 * widget's __index to a closure calling the old one). */
static void record_upvalues(struct lua_names *ln, uint64_t fn, uint8_t ffid, const char *name)
{
	const struct lj_layout *lay = ln->lay;
	uint8_t nup = 0;

	if (mem_read(ln->mem, fn + lay->fn_nupvalues, &nup, 1) || !nup)
		return;
	if (nup > MAX_UPVALUES)
		nup = MAX_UPVALUES;
	if (ln->nodes + nup > MAX_NODES)
		return;
	ln->nodes += nup;
	for (uint32_t i = 0; i < nup; i++) {
		uint64_t tv = 0, uv = 0, v = 0;

		if (ffid == FF_C ?
		    mem_read(ln->mem, fn + lay->fn_upvalue + (uint64_t)i * 8, &tv, 8) :
		    layout_read_ref(ln->mem, lay, fn + lay->fn_uvptr + (uint64_t)i * (lay->gc64 ? 8 : 4),
				    &uv) || !uv || layout_read_ref(ln->mem, lay, uv + lay->uv_v, &v) ||
		    !v || mem_read(ln->mem, v, &tv, 8))
			continue;
		if (lj_tv_itype(lay, tv) == LJ_TFUNC)
			record_func(ln, lj_tv_gcptr(lay, tv), name, NAME_UPVALUE);
	}
}

/* Records the function at fn under name, and the functions a C closure or
 * a class's Lua closure holds as upvalues (one level). */
static void record_func(struct lua_names *ln, uint64_t fn, const char *name, enum name_kind kind)
{
	uint8_t ffid;
	uint64_t cfunc = 0;

	if (gc_type(ln, fn) != LJ_GCT(LJ_TFUNC) || mem_read(ln->mem, fn + ln->lay->fn_ffid, &ffid, 1))
		return;
	if (ffid > FF_C) {
		map_put(ln, KEY_FF | ffid, name, kind);
		return;
	}
	/* GCfuncC.f is a native pointer, 8 bytes on x86-64 in either mode. */
	if (ffid == FF_C && !mem_read(ln->mem, fn + ln->lay->fn_cfunc, &cfunc, 8) &&
	    cfunc && !(cfunc & KEY_FF))
		map_put(ln, cfunc, name, kind);
	if (kind != NAME_UPVALUE && (ffid == FF_C || kind == NAME_CLASS))
		record_upvalues(ln, fn, ffid, name);
}

/* The hash part of table tab, copied: *nodes (malloc'd) and the count. */
static int read_nodes(struct lua_names *ln, uint64_t tab, uint8_t **nodes, uint32_t *count)
{
	uint64_t node = 0;
	uint32_t hmask = 0;
	size_t size;

	if (gc_type(ln, tab) != LJ_GCT(LJ_TTAB) ||
	    layout_read_ref(ln->mem, ln->lay, tab + ln->lay->tab_node, &node) ||
	    mem_read(ln->mem, tab + ln->lay->tab_hmask, &hmask, 4) || !node ||
	    hmask > MAX_HMASK || ln->nodes + hmask + 1 > MAX_NODES || ln->tables >= MAX_TABLES)
		return -1;
	ln->tables++;
	ln->nodes += hmask + 1;
	size = (size_t)(hmask + 1) * ln->lay->node_size;
	*nodes = malloc(size);
	if (!*nodes)
		return -1;
	if (mem_read(ln->mem, node, *nodes, size)) {
		free(*nodes);
		*nodes = NULL;
		return -1;
	}
	*count = hmask + 1;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* The walk */

static void walk_table(struct lua_names *ln, uint64_t tab, const char *prefix, int depth,
		       enum name_kind kind);

/* A class's methods are named after the class, whichever of its
 * metamethods' tables holds them: rspamd{task}.get_from, not
 * rspamd{task}.__index.get_from. */
static bool is_method_table(const char *key)
{
	return !strcmp(key, "__index") || !strcmp(key, "__newindex");
}

/* Names every function under a string key of the count nodes of tab,
 * prefix "lib" giving "lib.key" ("" for the global table: plain global
 * names), and walks the tables below while depth allows. */
static void walk_nodes(struct lua_names *ln, uint64_t tab, const uint8_t *nodes, uint32_t count,
		       const char *prefix, int depth, enum name_kind kind)
{
	for (uint32_t i = 0; i < count; i++) {
		const uint8_t *node = nodes + (size_t)i * ln->lay->node_size;
		char key[MAX_KEY], name[MAX_NAME];
		uint64_t val, k, sub;
		uint32_t vt;

		memcpy(&val, node, 8);
		memcpy(&k, node + ln->lay->node_key, 8);
		vt = lj_tv_itype(ln->lay, val);
		if ((vt != LJ_TFUNC && vt != LJ_TTAB) ||
		    lj_tv_itype(ln->lay, k) != LJ_TSTR ||
		    !read_key(ln, lj_tv_gcptr(ln->lay, k), key, sizeof(key)))
			continue;
		if (*prefix)
			snprintf(name, sizeof(name), "%s.%s", prefix, key);
		else
			snprintf(name, sizeof(name), "%s", key);
		sub = lj_tv_gcptr(ln->lay, val);
		if (vt == LJ_TFUNC)
			record_func(ln, sub, name, *prefix ? kind : NAME_GLOBAL);
		else if (sub == tab || sub == ln->global || depth + 1 >= MAX_DEPTH)
			continue;	/* mt.__index = mt; the global table again */
		else if (kind == NAME_CLASS && is_method_table(key))
			walk_table(ln, sub, prefix, depth + 1, kind);
		else
			walk_table(ln, sub, name, depth + 1, kind);
	}
}

static void walk_table(struct lua_names *ln, uint64_t tab, const char *prefix, int depth,
		       enum name_kind kind)
{
	uint8_t *nodes = NULL;
	uint32_t count = 0;

	if (read_nodes(ln, tab, &nodes, &count))
		return;
	walk_nodes(ln, tab, nodes, count, prefix, depth, kind);
	free(nodes);
}

/* package.loaded: "_G" is the global table (plain names), any other table
 * a library named by its key, a function a module that is one
 * ("table.new" in OpenResty). */
static void walk_loaded(struct lua_names *ln, uint64_t loaded)
{
	uint8_t *nodes = NULL;
	uint32_t count = 0;

	if (read_nodes(ln, loaded, &nodes, &count))
		return;
	for (uint32_t i = 0; i < count; i++) {
		const uint8_t *node = nodes + (size_t)i * ln->lay->node_size;
		char key[MAX_KEY];
		uint64_t val, k;
		uint32_t vt;

		memcpy(&val, node, 8);
		memcpy(&k, node + ln->lay->node_key, 8);
		vt = lj_tv_itype(ln->lay, val);
		if (lj_tv_itype(ln->lay, k) != LJ_TSTR ||
		    !read_key(ln, lj_tv_gcptr(ln->lay, k), key, sizeof(key)))
			continue;
		if (vt == LJ_TFUNC)
			record_func(ln, lj_tv_gcptr(ln->lay, val), key, NAME_LIB);
		else if (vt == LJ_TTAB)
			walk_table(ln, lj_tv_gcptr(ln->lay, val), strcmp(key, "_G") ? key : "",
				   strcmp(key, "_G") ? 1 : 0, NAME_LIB);
	}
	free(nodes);
}

/* The name a class gives itself: a string under "class"
 * (rspamd_lua_new_class) or "__name" (luaL_newmetatable of Lua 5.3 and the
 * compatibility layers that copy it). */
static bool class_field(struct lua_names *ln, const uint8_t *nodes, uint32_t count, char *buf,
			size_t len)
{
	for (uint32_t i = 0; i < count; i++) {
		const uint8_t *node = nodes + (size_t)i * ln->lay->node_size;
		char key[8];
		uint64_t val, k;

		memcpy(&val, node, 8);
		memcpy(&k, node + ln->lay->node_key, 8);
		if (lj_tv_itype(ln->lay, val) == LJ_TSTR &&
		    lj_tv_itype(ln->lay, k) == LJ_TSTR &&
		    read_key(ln, lj_tv_gcptr(ln->lay, k), key, sizeof(key)) &&
		    (!strcmp(key, "class") || !strcmp(key, "__name")) &&
		    read_key(ln, lj_tv_gcptr(ln->lay, val), buf, len))
			return true;
	}
	return false;
}

/* A light userdata: GC64 tags it ~3 (src/lj_obj.h); a 64-bit build
 * without GC64 keeps the 47-bit pointer under 0x1fffe in the top 17 bits. */
static bool is_lightud(const struct lj_layout *lay, uint64_t tv)
{
	return lay->gc64 ? lj_tv_itype(lay, tv) == LJ_TLIGHTUD : (int64_t)tv >> 47 == -2;
}

static bool is_ident_char(char c)
{
	return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* The identifier at ptr's first pointer, when there is one. */
static bool pointed_name(struct lua_names *ln, uint64_t ptr, char *buf, size_t len)
{
	uint64_t str = 0;
	size_t n;

	if (!ptr || mem_read(ln->mem, ptr, &str, 8) || !str || mem_read(ln->mem, str, buf, len - 1))
		return false;
	buf[len - 1] = '\0';
	n = strlen(buf);
	if (!n || n == len - 1 || (buf[0] >= '0' && buf[0] <= '9'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!is_ident_char(buf[i]))
			return false;
	return true;
}

/* The first C function's address among the count nodes, or 0. */
static uint64_t some_cfunc(struct lua_names *ln, const uint8_t *nodes, uint32_t count)
{
	for (uint32_t i = 0; i < count; i++) {
		uint64_t val, fn, cfunc = 0;
		uint8_t ffid = 0;

		memcpy(&val, nodes + (size_t)i * ln->lay->node_size, 8);
		fn = lj_tv_gcptr(ln->lay, val);
		if (lj_tv_itype(ln->lay, val) == LJ_TFUNC && gc_type(ln, fn) == LJ_GCT(LJ_TFUNC) &&
		    !mem_read(ln->mem, fn + ln->lay->fn_ffid, &ffid, 1) && ffid == FF_C &&
		    !mem_read(ln->mem, fn + ln->lay->fn_cfunc, &cfunc, 8))
			return cfunc;
	}
	return 0;
}

/* The name of the C struct a light userdata key points at, when it starts
 * with a pointer to an identifier: luakit's and awesome's lua_class_t
 * (their classes' metatables are keyed by it and hold no name).  64-bit
 * builds since 2020 keep the low 39 bits of a light userdata and a segment
 * number (src/lj_udata.h lightud_intern); the struct and the class's C
 * functions are in one executable, so a C function of the table gives the
 * rest. */
static bool struct_name(struct lua_names *ln, uint64_t lightud, const uint8_t *nodes,
			uint32_t count, char *buf, size_t len)
{
	const uint64_t lo = (1ull << 39) - 1;
	uint64_t near;

	if (pointed_name(ln, lightud, buf, len))
		return true;
	near = some_cfunc(ln, nodes, count);
	return near && pointed_name(ln, (near & ~lo) | (lightud & lo), buf, len);
}

/* A table the registry holds under key k: a class named by its own field,
 * else by the string key it is held under, else by the name the struct
 * a light userdata key points at gives (a reference number or an unnamed
 * key: not a class). */
static void walk_class(struct lua_names *ln, uint64_t tab, uint64_t k)
{
	uint8_t *nodes = NULL;
	uint32_t count = 0;
	char name[MAX_KEY];
	bool named;

	if (tab == ln->global || read_nodes(ln, tab, &nodes, &count))
		return;
	named = class_field(ln, nodes, count, name, sizeof(name));
	if (!named && lj_tv_itype(ln->lay, k) == LJ_TSTR)
		named = read_key(ln, lj_tv_gcptr(ln->lay, k), name, sizeof(name));
	else if (!named && is_lightud(ln->lay, k))
		named = struct_name(ln, k & LIGHTUD_MASK, nodes, count, name, 32);
	if (named)
		walk_nodes(ln, tab, nodes, count, name, 0, NAME_CLASS);
	free(nodes);
}

/* The registry's array part: what luaL_ref keeps (rspamd's classes). */
static void walk_refs(struct lua_names *ln, uint64_t reg)
{
	uint8_t *slots = NULL;
	uint32_t asize = 0;
	uint64_t array = 0;

	if (layout_read_ref(ln->mem, ln->lay, reg + ln->lay->tab_array, &array) ||
	    mem_read(ln->mem, reg + ln->lay->tab_asize, &asize, 4) || !array || !asize ||
	    asize > MAX_HMASK || ln->nodes + asize > MAX_NODES)
		return;
	ln->nodes += asize;
	slots = malloc((size_t)asize * 8);
	if (slots && !mem_read(ln->mem, array, slots, (size_t)asize * 8)) {
		for (uint32_t i = 0; i < asize; i++) {
			uint64_t val;

			memcpy(&val, slots + (size_t)i * 8, 8);
			if (lj_tv_itype(ln->lay, val) == LJ_TTAB)
				walk_class(ln, lj_tv_gcptr(ln->lay, val), 0);
		}
	}
	free(slots);
}

/* The registry's hash part (string and light userdata keys) and array part
 * (luaL_ref's numbers): the metatables C code keeps there, with the C
 * methods no library names (a userdata's methods). */
static void walk_registry(struct lua_names *ln, uint64_t reg, uint64_t loaded)
{
	uint8_t *nodes = NULL;
	uint32_t count = 0;

	if (!read_nodes(ln, reg, &nodes, &count)) {
		for (uint32_t i = 0; i < count; i++) {
			const uint8_t *node = nodes + (size_t)i * ln->lay->node_size;
			uint64_t val, k;

			memcpy(&val, node, 8);
			memcpy(&k, node + ln->lay->node_key, 8);
			if (lj_tv_itype(ln->lay, val) == LJ_TTAB &&
			    lj_tv_gcptr(ln->lay, val) != loaded)
				walk_class(ln, lj_tv_gcptr(ln->lay, val), k);
		}
		free(nodes);
	}
	walk_refs(ln, reg);
}

int luanames_walk(struct lua_names *ln)
{
	struct name_map old = ln->map;
	uint64_t reg = 0, loaded = 0, gtab = 0;

	if (mem_read(ln->mem, ln->g + ln->lay->g_registrytv, &reg, 8) ||
	    lj_tv_itype(ln->lay, reg) != LJ_TTAB ||
	    lj_tab_getstr(ln->mem, ln->lay, lj_tv_gcptr(ln->lay, reg), "_LOADED", &loaded) ||
	    lj_tv_itype(ln->lay, loaded) != LJ_TTAB)
		return -1;
	memset(&ln->map, 0, sizeof(ln->map));
	ln->tables = ln->nodes = 0;
	ln->global = 0;
	if (!lj_tab_getstr(ln->mem, ln->lay, lj_tv_gcptr(ln->lay, loaded), "_G", &gtab) &&
	    lj_tv_itype(ln->lay, gtab) == LJ_TTAB)
		ln->global = lj_tv_gcptr(ln->lay, gtab);
	walk_loaded(ln, lj_tv_gcptr(ln->lay, loaded));
	walk_registry(ln, lj_tv_gcptr(ln->lay, reg), lj_tv_gcptr(ln->lay, loaded));
	ln->walks++;
	if (!ln->map.n && old.n) {
		/* Nothing readable this time: keep what the last walk found. */
		map_free(&ln->map);
		ln->map = old;
		return -1;
	}
	map_free(&old);
	return (int)ln->map.n;
}
