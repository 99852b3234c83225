/* Names of C and fast functions from the tables that hold them.
 *
 * Roots: the registry's _LOADED table (what package.loaded is; src/lib_package.c
 * and src/lj_lib.c lj_lib_register put every library there), and through
 * its "_G" entry the global table.  A library table's function entries are
 * named "lib.key", the global table's plain "key", and tables below them
 * one level down ("ngx.req.get_headers").  A function value is a GCfuncC
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

#define FF_C		1

#define MAX_DEPTH	3		/* _G -> ngx -> req -> get_headers */
#define MAX_HMASK	65535		/* nodes of one table read at most */
/* A walk runs in the drain path: a few ms at most, whatever the program
 * keeps in its global tables (a cache of 100k entries is skipped). */
#define MAX_TABLES	1024		/* tables walked per walk */
#define MAX_NODES	(1u << 17)	/* nodes read per walk */
#define MAX_KEY		64		/* longer keys are not names */
#define MAX_NAME	160

#define KEY_FF		(1ull << 63)	/* fast functions: ffid | KEY_FF */

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
 * plain global's (say = ngx.say), then the fewest dots. */
static int name_rank(const char *name, bool global)
{
	int dots = 0;

	for (const char *p = name; *p; p++)
		dots += *p == '.';
	return (global && !dots ? 1000 : 0) + dots;
}

static bool better_name(const char *name, int rank, const struct name_slot *have)
{
	return rank < have->rank || (rank == have->rank && strcmp(name, have->name) < 0);
}

static void map_put(struct lua_names *ln, uint64_t key, const char *name, bool global)
{
	struct name_map *m = &ln->map;
	struct name_slot *slot;
	int rank = name_rank(name, global);
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

/* Records the function at fn under name (global: a global variable). */
static void record_func(struct lua_names *ln, uint64_t fn, const char *name, bool global)
{
	uint8_t ffid;
	uint64_t cfunc = 0;

	if (gc_type(ln, fn) != LJ_GCT(LJ_TFUNC) || mem_read(ln->mem, fn + ln->lay->fn_ffid, &ffid, 1))
		return;
	if (ffid > FF_C) {
		map_put(ln, KEY_FF | ffid, name, global);
		return;
	}
	/* GCfuncC.f is a native pointer, 8 bytes on x86-64 in either mode. */
	if (ffid == FF_C && !mem_read(ln->mem, fn + ln->lay->fn_cfunc, &cfunc, 8) &&
	    cfunc && !(cfunc & KEY_FF))
		map_put(ln, cfunc, name, global);
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

/* Names every function under a string key of tab, prefix "lib" giving
 * "lib.key" ("" for the global table), and walks the tables below while
 * depth allows. */
static void walk_table(struct lua_names *ln, uint64_t tab, const char *prefix, int depth)
{
	uint8_t *nodes = NULL;
	uint32_t count = 0;

	if (read_nodes(ln, tab, &nodes, &count))
		return;
	for (uint32_t i = 0; i < count; i++) {
		const uint8_t *node = nodes + (size_t)i * ln->lay->node_size;
		char key[MAX_KEY], name[MAX_NAME];
		uint64_t val, k;
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
		if (vt == LJ_TFUNC)
			record_func(ln, lj_tv_gcptr(ln->lay, val), name, !*prefix);
		else if (depth + 1 < MAX_DEPTH && lj_tv_gcptr(ln->lay, val) != ln->global)
			walk_table(ln, lj_tv_gcptr(ln->lay, val), name, depth + 1);
	}
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
			record_func(ln, lj_tv_gcptr(ln->lay, val), key, false);
		else if (vt == LJ_TTAB)
			walk_table(ln, lj_tv_gcptr(ln->lay, val), strcmp(key, "_G") ? key : "",
				   strcmp(key, "_G") ? 1 : 0);
	}
	free(nodes);
}

int luanames_walk(struct lua_names *ln)
{
	struct name_map old = ln->map;
	uint64_t reg = 0, loaded = 0;

	if (mem_read(ln->mem, ln->g + ln->lay->g_registrytv, &reg, 8) ||
	    lj_tv_itype(ln->lay, reg) != LJ_TTAB ||
	    lj_tab_getstr(ln->mem, ln->lay, lj_tv_gcptr(ln->lay, reg), "_LOADED", &loaded) ||
	    lj_tv_itype(ln->lay, loaded) != LJ_TTAB)
		return -1;
	memset(&ln->map, 0, sizeof(ln->map));
	ln->tables = ln->nodes = 0;
	ln->global = 0;
	if (!lj_tab_getstr(ln->mem, ln->lay, lj_tv_gcptr(ln->lay, loaded), "_G", &reg) &&
	    lj_tv_itype(ln->lay, reg) == LJ_TTAB)
		ln->global = lj_tv_gcptr(ln->lay, reg);
	walk_loaded(ln, lj_tv_gcptr(ln->lay, loaded));
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
