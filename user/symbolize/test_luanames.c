// SPDX-License-Identifier: MIT
/* Function names from the VM's tables on a synthetic memory image laid out
 * as LuaJIT's GC64 objects (upstream GC64, layout_at(0)): the registry's
 * _LOADED, the global table through it, libraries and nested tables;
 * aliases resolved the same whatever the hash order; cycles, bad pointers
 * and objects of the wrong type skipped. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/unit.h"
#include "symbolize/luanames.h"
#include "luajit/layout.h"
#include "proc/memory.h"
#include "lj_consts.h"

#define BASE		0x7f4400000000ull
#define IMG_SIZE	(64 * 1024)
#define G_ADDR		(BASE + 64)


static const struct lj_layout *lay;
static uint8_t img[IMG_SIZE];
static size_t top = 4096;	/* global_State at G_ADDR below */

static void put(uint64_t a, uint64_t v, int width)
{
	for (int i = 0; i < width; i++)
		img[a - BASE + i] = (uint8_t)(v >> (8 * i));
}

static uint64_t alloc(size_t n)
{
	uint64_t a;

	top = (top + 15) & ~(size_t)15;
	if (top + n > IMG_SIZE) {
		fprintf(stderr, "test image full\n");
		exit(2);
	}
	a = BASE + top;
	top += n;
	return a;
}

static uint64_t tv(uint32_t itype, uint64_t gc)
{
	return (uint64_t)itype << 47 | gc;
}

static uint64_t mkstr(const char *s)
{
	size_t len = strlen(s);
	uint64_t a = alloc(lay->str_data + len + 1);

	put(a + lay->gct, LJ_GCT(LJ_TSTR), 1);
	put(a + lay->str_len, len, 4);
	memcpy(&img[a + lay->str_data - BASE], s, len);
	return a;
}

static uint64_t mkfunc(int ffid, uint64_t cfunc)
{
	uint64_t a = alloc(64);

	put(a + lay->gct, LJ_GCT(LJ_TFUNC), 1);
	put(a + lay->fn_ffid, (uint64_t)ffid, 1);
	put(a + lay->fn_cfunc, cfunc, 8);
	return a;
}

/* A table with room for hmask + 1 string-keyed entries. */
static uint64_t mktab(uint32_t hmask)
{
	uint64_t a = alloc(64), nodes = alloc((size_t)(hmask + 1) * lay->node_size);

	put(a + lay->gct, LJ_GCT(LJ_TTAB), 1);
	put(a + lay->tab_node, nodes, 8);
	put(a + lay->tab_hmask, hmask, 4);
	return a;
}

/* A Lua closure whose one upvalue holds val (GCfuncL.uvptr[0] -> GCupval,
 * its v -> the TValue). */
static uint64_t mkclosure(uint64_t val)
{
	uint64_t fn = alloc(64), uv = alloc(64), slot = alloc(8);

	put(fn + lay->gct, LJ_GCT(LJ_TFUNC), 1);
	put(fn + lay->fn_ffid, 0, 1);
	put(fn + lay->fn_nupvalues, 1, 1);
	put(fn + lay->fn_uvptr, uv, 8);
	put(uv + lay->uv_v, slot, 8);
	put(slot, val, 8);
	return fn;
}

/* Sets the slot-th node of tab to the raw key k = val. */
static void set_raw(uint64_t tab, uint32_t slot, uint64_t k, uint64_t val)
{
	uint64_t nodes = 0;

	memcpy(&nodes, &img[tab + lay->tab_node - BASE], 8);
	put(nodes + (uint64_t)slot * lay->node_size, val, 8);
	put(nodes + (uint64_t)slot * lay->node_size + lay->node_key, k, 8);
}

/* Sets the slot-th node of tab to key = val (nil keys elsewhere). */
static void set(uint64_t tab, uint32_t slot, const char *key, uint64_t val)
{
	uint64_t nodes = 0;

	memcpy(&nodes, &img[tab + lay->tab_node - BASE], 8);
	put(nodes + (uint64_t)slot * lay->node_size, val, 8);
	put(nodes + (uint64_t)slot * lay->node_size + lay->node_key, tv(LJ_TSTR, mkstr(key)), 8);
}

static struct lua_names *open_names(struct mem_reader **m)
{
	static struct mem_region region;

	region.addr = BASE;
	region.data = img;
	region.len = IMG_SIZE;
	*m = mem_open_image(&region, 1);
	return luanames_new(*m, lay, G_ADDR);
}

/* The registry's classes: rspamd's (a "class" field, keyed by a light
 * userdata or a reference number, methods in __index), luaL_newmetatable's
 * (keyed by name), luakit's (keyed by a lua_class_t whose first field
 * names it, its __index replaced by a Lua closure holding the C one). */
static void test_classes(void)
{
	uint64_t reg, loaded, G, lib, task, task_index, url, refs, mt, widget, cls, cname, mtw;
	struct mem_reader *m;
	struct lua_names *ln;

	reg = mktab(7);
	loaded = mktab(1);
	G = mktab(1);
	lib = mktab(1);
	put(G_ADDR + lay->g_registrytv, tv(LJ_TTAB, reg), 8);
	set(reg, 0, "_LOADED", tv(LJ_TTAB, loaded));
	set(loaded, 0, "_G", tv(LJ_TTAB, G));
	set(loaded, 1, "rspamd_util", tv(LJ_TTAB, lib));
	set(lib, 0, "get_tld", tv(LJ_TFUNC, mkfunc(1, 0x501000)));

	/* rspamd{task}: registry[lightud] = mt, mt.__index = {get_from, ...}. */
	task = mktab(3);
	task_index = mktab(3);
	set(task, 0, "class", tv(LJ_TSTR, mkstr("rspamd{task}")));
	set(task, 1, "__index", tv(LJ_TTAB, task_index));
	set(task, 2, "__gc", tv(LJ_TFUNC, mkfunc(1, 0x502000)));
	set(task_index, 0, "get_from", tv(LJ_TFUNC, mkfunc(1, 0x503000)));
	/* The library's function again in the class: the library names it. */
	set(task_index, 1, "get_tld", tv(LJ_TFUNC, mkfunc(1, 0x501000)));
	set(task_index, 2, "self", tv(LJ_TTAB, task_index));	/* a cycle */
	set_raw(reg, 1, tv(LJ_TLIGHTUD, 0x1234560), tv(LJ_TTAB, task));

	/* rspamd{url} under a luaL_ref number: the registry's array part. */
	url = mktab(1);
	set(url, 0, "class", tv(LJ_TSTR, mkstr("rspamd{url}")));
	set(url, 1, "get_host", tv(LJ_TFUNC, mkfunc(1, 0x504000)));
	refs = alloc(3 * 8);
	put(refs + 8, tv(LJ_TTAB, url), 8);
	put(reg + lay->tab_array, refs, 8);
	put(reg + lay->tab_asize, 3, 4);

	/* luaL_newmetatable(L, "webview"): registry.webview = mt. */
	mt = mktab(1);
	set(mt, 0, "__tostring", tv(LJ_TFUNC, mkfunc(1, 0x505000)));
	set(reg, 2, "webview", tv(LJ_TTAB, mt));

	/* luakit: registry[&widget_class] = mtw; widget_class.name = "widget";
	 * mtw.__index is a Lua closure whose upvalue is the C __index.  The
	 * key keeps the pointer's low 39 bits only (a segmented light
	 * userdata of GC64): the C functions beside it give the rest. */
	cls = alloc(16);
	cname = mkstr("widget");
	put(cls, cname + lay->str_data, 8);
	mtw = mktab(3);
	widget = mkfunc(1, BASE + 0x100);
	set(mtw, 0, "__index", tv(LJ_TFUNC, mkclosure(tv(LJ_TFUNC, widget))));
	set(mtw, 1, "__gc", tv(LJ_TFUNC, mkfunc(1, BASE + 0x200)));
	set_raw(reg, 3, tv(LJ_TLIGHTUD, cls & ((1ull << 39) - 1)), tv(LJ_TTAB, mtw));
	/* An unnamed table under a light userdata: not a class. */
	{
		uint64_t anon = mktab(1);

		set(anon, 0, "f", tv(LJ_TFUNC, mkfunc(1, 0x506000)));
		set_raw(reg, 4, tv(LJ_TLIGHTUD, 0x7f0000003000ull), tv(LJ_TTAB, anon));
	}

	ln = open_names(&m);
	CHECK("the walk names the registry's classes", luanames_walk(ln) > 0);
	CHECK_STR("a method in a class's __index: rspamd{task}.get_from",
		  luanames_cfunc(ln, 0x503000), "rspamd{task}.get_from");
	CHECK_STR("a metamethod: rspamd{task}.__gc", luanames_cfunc(ln, 0x502000), "rspamd{task}.__gc");
	CHECK_STR("a library's name beats a class's", luanames_cfunc(ln, 0x501000),
		  "rspamd_util.get_tld");
	CHECK_STR("a class under a reference number: rspamd{url}.get_host",
		  luanames_cfunc(ln, 0x504000), "rspamd{url}.get_host");
	CHECK_STR("a class under its registry name: webview.__tostring",
		  luanames_cfunc(ln, 0x505000), "webview.__tostring");
	CHECK_STR("a class named by its lua_class_t: widget.__gc", luanames_cfunc(ln, BASE + 0x200),
		  "widget.__gc");
	CHECK_STR("the C __index a Lua closure holds as an upvalue: widget.__index",
		  luanames_cfunc(ln, BASE + 0x100), "widget.__index");
	CHECK("an unnamed table under a light userdata names nothing", !luanames_cfunc(ln, 0x506000));
	luanames_free(ln);
	mem_close(m);
}

int main(void)
{
	uint64_t reg, loaded, G, ngx, req, strlib, chost, junk, say, spin;
	struct mem_reader *m;
	struct lua_names *ln;

	lay = layout_at(0);
	reg = mktab(3);
	loaded = mktab(7);
	G = mktab(15);
	ngx = mktab(3);
	req = mktab(1);
	strlib = mktab(3);
	chost = mktab(1);
	put(G_ADDR + lay->g_registrytv, tv(LJ_TTAB, reg), 8);
	set(reg, 2, "_LOADED", tv(LJ_TTAB, loaded));

	set(loaded, 0, "_G", tv(LJ_TTAB, G));
	set(loaded, 1, "string", tv(LJ_TTAB, strlib));
	set(loaded, 2, "table.new", tv(LJ_TFUNC, mkfunc(120, 0)));
	set(strlib, 0, "gsub", tv(LJ_TFUNC, mkfunc(90, 0)));
	/* The same fast function again under a longer library name. */
	set(G, 9, "string2", tv(LJ_TTAB, strlib));

	say = mkfunc(1, 0x401000);
	spin = mkfunc(1, 0x402000);
	set(G, 0, "print", tv(LJ_TFUNC, mkfunc(20, 0)));
	set(G, 1, "ngx", tv(LJ_TTAB, ngx));
	set(G, 2, "string", tv(LJ_TTAB, strlib));
	set(G, 3, "_G", tv(LJ_TTAB, G));		/* a cycle */
	set(G, 4, "say", tv(LJ_TFUNC, say));	/* a global alias of ngx.say */
	set(G, 5, "chost", tv(LJ_TTAB, chost));
	/* A "table" whose object is a string: skipped, not followed. */
	set(G, 6, "bogus", tv(LJ_TTAB, mkstr("not a table")));
	/* A table pointer into unmapped memory. */
	set(G, 7, "wild", tv(LJ_TTAB, 0x7f0000001000ull));
	/* A key that is not a string object. */
	junk = mkfunc(1, 0x403000);
	set(G, 8, "junk", tv(LJ_TFUNC, junk));
	{
		uint64_t nodes = 0;

		memcpy(&nodes, &img[G + lay->tab_node - BASE], 8);
		put(nodes + 8ull * lay->node_size + lay->node_key, tv(LJ_TSTR, say), 8);
	}
	set(ngx, 0, "say", tv(LJ_TFUNC, say));
	set(ngx, 1, "req", tv(LJ_TTAB, req));
	set(req, 1, "get_headers", tv(LJ_TFUNC, mkfunc(1, 0x404000)));
	set(chost, 0, "spin", tv(LJ_TFUNC, spin));

	ln = open_names(&m);
	CHECK("nothing before a walk", !luanames_cfunc(ln, 0x401000) && !luanames_ff(ln, 90));
	CHECK("the walk names functions", luanames_walk(ln) > 0 && luanames_walks(ln) == 1);
	CHECK_STR("a library's C function: ngx.say, not the global alias say",
		  luanames_cfunc(ln, 0x401000), "ngx.say");
	CHECK_STR("two levels down: ngx.req.get_headers", luanames_cfunc(ln, 0x404000),
		  "ngx.req.get_headers");
	CHECK_STR("a host's library: chost.spin", luanames_cfunc(ln, 0x402000), "chost.spin");
	CHECK_STR("a global fast function: print", luanames_ff(ln, 20), "print");
	CHECK_STR("a library fast function: string.gsub", luanames_ff(ln, 90), "string.gsub");
	CHECK_STR("a module that is a function: table.new", luanames_ff(ln, 120), "table.new");
	CHECK("a key that is not a string names nothing", !luanames_cfunc(ln, 0x403000));
	CHECK("unknown ids and addresses", !luanames_ff(ln, 77) && !luanames_cfunc(ln, 0x405000) &&
	      !luanames_ff(ln, 1) && !luanames_ff(ln, 0));

	/* The same names in another hash order. */
	set(ngx, 0, "zzz", tv(LJ_TTAB, req));
	set(ngx, 3, "say", tv(LJ_TFUNC, say));
	luanames_walk(ln);
	CHECK_STR("hash order does not change the choice", luanames_cfunc(ln, 0x401000), "ngx.say");

	/* Roots unreadable: the last walk's names stay. */
	put(G_ADDR + lay->g_registrytv, tv(LJ_TTAB, 0x7f0000002000ull), 8);
	CHECK("an unreadable registry fails the walk", luanames_walk(ln) < 0);
	CHECK_STR("and keeps the names found before", luanames_cfunc(ln, 0x402000), "chost.spin");

	luanames_free(ln);
	mem_close(m);
	test_classes();
	UNIT_EXIT();
}
