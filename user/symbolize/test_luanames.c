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
	UNIT_EXIT();
}
