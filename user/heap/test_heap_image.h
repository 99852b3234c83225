/* SPDX-License-Identifier: MIT */
/* A small LuaJIT heap built byte by byte for a layout, for the heap
 * walker's unit test (test_heap.c) and fuzzer (tests/fuzz/fuzz_heap.c).
 * The main thread is GG_State's lua_State; its stack holds T2; _G is
 * { app = T1, hello = cfunc }, T1 = { "hello", T2, 42 }, T2 = { nil, nil }
 * (its array colocated after its header);
 * a C function with the upvalue "hello", a 100-byte userdata and a
 * vector cdata (32 bytes + 16 extra) nothing reaches.  Root list:
 * T1 T2 G cfunc udata cdata L; string chains: [0] app hello, [1] flag. */
#ifndef LBP_TEST_HEAP_IMAGE_H
#define LBP_TEST_HEAP_IMAGE_H

#include <stdint.h>
#include <string.h>

#include "luajit/layout.h"

#define HI_SIZE		0x6000
#define HI_GG		0x1000
#define HI_STRTAB	0x3000
#define HI_STACK	0x3400
#define HI_G		0x4000
#define HI_T1		0x4100
#define HI_T2		0x4200
#define HI_APP		0x4300
#define HI_HELLO	0x4400
#define HI_UDATA	0x4500
#define HI_CDATA	0x4608
#define HI_CFUNC	0x4700
#define HI_NODES	0x5000
#define HI_ARRAY	0x5100
#define HI_NILNODE	0x5200
#define HI_GC_TOTAL	2000

struct heap_image {
	const struct lj_layout *lay;
	uint64_t base;
	uint8_t b[HI_SIZE];
};

static inline void hi_put(struct heap_image *im, uint64_t off, uint64_t v, int width)
{
	for (int i = 0; i < width; i++)
		im->b[off + (uint64_t)i] = (uint8_t)(v >> (8 * i));
}

static inline void hi_ref(struct heap_image *im, uint64_t off, uint64_t target_off)
{
	hi_put(im, off, target_off ? im->base + target_off : 0, im->lay->gc64 ? 8 : 4);
}

/* A TValue for the GC object at off whose gct is gct. */
static inline uint64_t hi_tv(const struct heap_image *im, uint64_t off, unsigned gct)
{
	uint64_t it = (uint32_t)~gct;

	return im->lay->gc64 ? (it << 47) | (im->base + off) : (it << 32) | (im->base + off);
}

static inline void hi_obj(struct heap_image *im, uint64_t off, unsigned gct, uint64_t next)
{
	hi_ref(im, off, next);
	im->b[off + im->lay->gct] = (uint8_t)gct;
}

static inline void hi_str(struct heap_image *im, uint64_t off, const char *s, uint64_t next)
{
	hi_obj(im, off, 4, next);
	hi_put(im, off + im->lay->str_len, strlen(s), 4);
	memcpy(im->b + off + im->lay->str_data, s, strlen(s));
}

static inline void hi_tab(struct heap_image *im, uint64_t off, uint64_t next, uint32_t asize,
			  uint64_t array, uint32_t hmask, uint64_t node)
{
	hi_obj(im, off, 11, next);
	hi_put(im, off + im->lay->tab_asize, asize, 4);
	hi_ref(im, off + im->lay->tab_array, array);
	hi_put(im, off + im->lay->tab_hmask, hmask, 4);
	hi_ref(im, off + im->lay->tab_node, node);
}

static inline void heap_image_build(struct heap_image *im, const struct lj_layout *lay)
{
	const uint64_t nil = ~0ull, num42 = 0x4045000000000000ull;
	uint64_t g = HI_GG + lay->sizeof_L;
	unsigned rs = lay->gc64 ? 8 : 4, ns = lay->node_size;

	memset(im->b, 0, sizeof(im->b));
	im->lay = lay;
	im->base = lay->gc64 ? 0x7f0000100000ull : 0x40000000ull;
	/* global_State */
	hi_put(im, g + lay->g_gc_total, HI_GC_TOTAL, rs);
	hi_ref(im, g + lay->g_gc_root, HI_T1);
	hi_ref(im, g + lay->g_mainthref, HI_GG);
	hi_put(im, g + lay->g_registrytv, nil, 8);
	hi_put(im, g + lay->g_strtab, im->base + HI_STRTAB, 8);
	hi_put(im, g + lay->g_strmask, 3, 4);
	hi_ref(im, HI_STRTAB, HI_APP);
	hi_put(im, HI_STRTAB + rs, 1, rs);	/* a secondary-hash flag, no string */
	/* The main thread, last on the root list. */
	hi_obj(im, HI_GG, 6, 0);
	hi_ref(im, HI_GG + lay->L_stack, HI_STACK);
	hi_put(im, HI_GG + lay->L_stacksize, 10, 4);
	hi_put(im, HI_GG + lay->L_top, im->base + HI_STACK + 16, 8);
	hi_ref(im, HI_GG + lay->L_env, HI_G);
	hi_put(im, HI_STACK, hi_tv(im, HI_T2, 11), 8);
	hi_put(im, HI_STACK + 8, num42, 8);
	/* Tables */
	hi_tab(im, HI_T1, HI_T2, 3, HI_ARRAY, 0, HI_NILNODE);
	hi_put(im, HI_ARRAY, hi_tv(im, HI_HELLO, 4), 8);
	hi_put(im, HI_ARRAY + 8, hi_tv(im, HI_T2, 11), 8);
	hi_put(im, HI_ARRAY + 16, num42, 8);
	/* T2's two array slots are colocated after its header (colo 2). */
	hi_tab(im, HI_T2, HI_G, 2, HI_T2 + lay->sizeof_tab, 0, HI_NILNODE);
	im->b[HI_T2 + lay->tab_colo] = 2;
	hi_put(im, HI_T2 + lay->sizeof_tab, nil, 8);
	hi_put(im, HI_T2 + lay->sizeof_tab + 8, nil, 8);
	hi_tab(im, HI_G, HI_CFUNC, 0, 0, 1, HI_NODES);
	hi_put(im, HI_NODES, hi_tv(im, HI_T1, 11), 8);
	hi_put(im, HI_NODES + lay->node_key, hi_tv(im, HI_APP, 4), 8);
	hi_put(im, HI_NODES + ns, hi_tv(im, HI_CFUNC, 8), 8);
	hi_put(im, HI_NODES + ns + lay->node_key, hi_tv(im, HI_HELLO, 4), 8);
	hi_put(im, HI_NILNODE, nil, 8);
	hi_put(im, HI_NILNODE + lay->node_key, nil, 8);
	/* Strings */
	hi_str(im, HI_APP, "app", HI_HELLO);
	hi_str(im, HI_HELLO, "hello", 0);
	/* A C function with one upvalue */
	hi_obj(im, HI_CFUNC, 8, HI_UDATA);
	im->b[HI_CFUNC + lay->fn_ffid] = 1;
	im->b[HI_CFUNC + lay->fn_nupvalues] = 1;
	hi_ref(im, HI_CFUNC + lay->fn_env, HI_G);
	hi_put(im, HI_CFUNC + lay->fn_upvalue, hi_tv(im, HI_HELLO, 4), 8);
	/* Userdata and a vector cdata: GCcdataVar {offset, extra, len} before it */
	hi_obj(im, HI_UDATA, 12, HI_CDATA);
	hi_put(im, HI_UDATA + lay->ud_len, 100, 4);
	hi_obj(im, HI_CDATA, 10, HI_GG);
	im->b[HI_CDATA + lay->gct - 1] = 0x80;
	hi_put(im, HI_CDATA - 8, 8, 2);
	hi_put(im, HI_CDATA - 6, 16, 2);
	hi_put(im, HI_CDATA - 4, 32, 4);
}

#endif
