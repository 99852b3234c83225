/* SPDX-License-Identifier: MIT */
/* A synthetic memory image for the symbolizer's unit tests: GCprotos with
 * bytecode, constants, lineinfo, varinfo and uvinfo laid out as LuaJIT
 * does (upstream GC64, layout_at(0)), strings, and a spare region that is
 * freed and reused.  Shared by test_symbolize.c and test_symbolize_reuse.c. */
#ifndef LBP_TEST_SYMBOLIZE_IMAGE_H
#define LBP_TEST_SYMBOLIZE_IMAGE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/unit.h"
#include "model/frame_fmt.h"
#include "luajit/layout.h"
#include "proc/memory.h"
#include "luajit/vmdef.h"
#include "symbolize/symbolize.h"

#define BASE		0x7f5500000000ull
#define IMG_SIZE	(256 * 1024)
#define SPARE		0x7f5600000000ull	/* a second region: freed, reused */
#define SPARE_SIZE	4096

/* Opcodes (upstream before 2025, src/lj_bc.h BCDEF). */
enum {
	OP_ADDVV = 32, OP_CAT = 38, OP_KPRI = 43, OP_MOV = 18, OP_UGET = 45, OP_FNEW = 51,
	OP_GGET = 54, OP_TGETS = 57, OP_CALL = 66, OP_ITERC = 69, OP_RET0 = 75, OP_FUNCF = 89,
};

#define INS_AD(op, a, d)	((uint32_t)(op) | (uint32_t)(a) << 8 | (uint32_t)(d) << 16)
#define INS_ABC(op, a, b, c)	((uint32_t)(op) | (uint32_t)(a) << 8 | (uint32_t)(c) << 16 | \
				 (uint32_t)(b) << 24)

static const struct lj_layout *lay;
static uint8_t *img;		/* mapped at BASE */
static size_t img_top = 64;
static uint8_t spare[SPARE_SIZE];	/* mapped at SPARE while regions[1].len says so */
static struct mem_region regions[2];

static inline uint8_t *at(uint64_t a)
{
	if (a >= SPARE && a < SPARE + SPARE_SIZE)
		return spare + (a - SPARE);
	return img + (a - BASE);
}

static inline void put(uint64_t a, uint64_t v, int width)
{
	for (int i = 0; i < width; i++)
		at(a)[i] = (uint8_t)(v >> (8 * i));
}

static inline uint64_t alloc(size_t n)
{
	uint64_t a;

	img_top = (img_top + 7) & ~(size_t)7;
	if (img_top + n > IMG_SIZE) {
		fprintf(stderr, "test image full\n");
		exit(2);
	}
	a = BASE + img_top;
	img_top += n;
	return a;
}

/* Writes a GCstr of len bytes (may hold NULs and any byte) at a, with a
 * new string id, as LuaJIT gives each new string. */
static inline void write_str(uint64_t a, const char *s, size_t len)
{
	static uint32_t next_sid = 1000;

	put(a + lay->gct, 4, 1);
	put(a + lay->str_sid, next_sid++, 4);
	put(a + lay->str_len, len, 4);
	memcpy(at(a + lay->str_data), s, len);
	at(a + lay->str_data)[len] = 0;
}

static inline uint64_t mkstr_n(const char *s, size_t len)
{
	uint64_t a = alloc(lay->str_data + len + 1);

	write_str(a, s, len);
	return a;
}

static inline uint64_t mkstr(const char *s)
{
	return mkstr_n(s, strlen(s));
}

struct pspec {
	const char *chunk;
	size_t chunk_len;		/* 0: strlen(chunk) */
	int firstline, numline;
	const uint32_t *bc;
	uint32_t sizebc;
	const char *const *kstr;	/* kgc string constants by d */
	uint32_t nk;
	const uint8_t *lineinfo;	/* sizebc - 1 deltas of 1, 2 or 4 bytes; NULL = stripped */
	const uint8_t *varinfo;
	size_t varinfo_len;
	const char *uvinfo;		/* sizeuv NUL-terminated names */
	size_t uvinfo_len;
	uint8_t sizeuv;
};

/* Writes the prototype header for spec at pt, whose bytecode follows it. */
static inline void write_header(uint64_t pt, const struct pspec *p, uint64_t chunk, uint64_t k,
			 uint64_t lineinfo, uint64_t varinfo, uint64_t uvinfo)
{
	memset(at(pt), 0, lay->sizeof_proto);
	put(pt + lay->gct, 7, 1);
	put(pt + lay->pt_sizebc, p->sizebc, 4);
	put(pt + lay->pt_k, k, 8);
	put(pt + lay->pt_sizekgc, p->nk, 4);
	put(pt + lay->pt_sizeuv, p->sizeuv, 1);
	put(pt + lay->pt_chunkname, chunk, 8);
	put(pt + lay->pt_firstline, (uint32_t)p->firstline, 4);
	put(pt + lay->pt_numline, (uint32_t)p->numline, 4);
	put(pt + lay->pt_lineinfo, lineinfo, 8);
	put(pt + lay->pt_uvinfo, uvinfo, 8);
	put(pt + lay->pt_varinfo, varinfo, 8);
	for (uint32_t i = 0; i < p->sizebc; i++)
		put(pt + lay->sizeof_proto + 4ull * i, p->bc[i], 4);
}

/* One block as lj_parse lays it out (fs_finish): [GCproto][bc][kgc] k
 * [lineinfo][uvinfo][varinfo].  With where != 0 the block goes there (the
 * spare region); the strings go to the main image. */
static inline uint64_t mkproto_at(const struct pspec *p, uint64_t where)
{
	uint64_t chunk = mkstr_n(p->chunk, p->chunk_len ? p->chunk_len : strlen(p->chunk));
	uint64_t kstr[16], lineinfo = 0, varinfo = 0, uvinfo = 0, pt, k, at_end;
	size_t bcbytes = (4ull * p->sizebc + 7) & ~7ull;
	size_t lsz = p->numline < 256 ? 1 : p->numline < 65536 ? 2 : 4;
	size_t size = lay->sizeof_proto + bcbytes + 8ull * p->nk;

	for (uint32_t d = 0; d < p->nk; d++)
		kstr[d] = mkstr(p->kstr[d]);
	if (p->lineinfo)
		size += p->sizebc * lsz;
	size += p->uvinfo_len + p->varinfo_len;
	pt = where ? where : alloc(size);
	k = pt + lay->sizeof_proto + bcbytes + 8ull * p->nk;
	for (uint32_t d = 0; d < p->nk; d++)
		put(k - (d + 1) * 8, kstr[d], 8);
	at_end = k;
	if (p->lineinfo) {
		lineinfo = at_end;
		memcpy(at(lineinfo), p->lineinfo, (p->sizebc - 1) * lsz);
		at_end += p->sizebc * lsz;
	}
	if (p->uvinfo) {
		uvinfo = at_end;
		memcpy(at(uvinfo), p->uvinfo, p->uvinfo_len);
		at_end += p->uvinfo_len;
	}
	if (p->varinfo) {
		varinfo = at_end;
		memcpy(at(varinfo), p->varinfo, p->varinfo_len);
	}
	write_header(pt, p, chunk, k, lineinfo, varinfo, uvinfo);
	put(pt + lay->pt_sizept, size, 4);
	return pt;
}

static inline uint64_t mkproto(const struct pspec *p)
{
	return mkproto_at(p, 0);
}

/* The fingerprint the sampler would take of the prototype at pt now. */
static inline uint32_t fingerprint_of(uint64_t pt)
{
	uint64_t chunk = 0;
	uint32_t sid = 0;
	int32_t first = 0, num = 0;

	memcpy(&chunk, at(pt + lay->pt_chunkname), 8);
	memcpy(&first, at(pt + lay->pt_firstline), 4);
	memcpy(&num, at(pt + lay->pt_numline), 4);
	memcpy(&sid, at(chunk + lay->str_sid), 4);
	return frame_fingerprint(sid, first, num);
}

/* A Lua frame whose current instruction is pos (the saved PC points
 * after it); pos < 0: PC unknown. */
static inline struct lua_frame lua_at(uint64_t pt, int pos)
{
	struct lua_frame f = { FRAME_KIND_LUA << FRAME_KIND_SHIFT | pt, 0, 0 };

	if (pos >= 0)
		f.pc_off = lay->sizeof_proto + 4u * (uint32_t)(pos + 1);
	return f;
}

static inline struct lua_frame c_frame(uint64_t fn)
{
	return (struct lua_frame){ FRAME_KIND_C << FRAME_KIND_SHIFT | fn, 0, 0 };
}

static inline struct lua_frame ff_frame(int ffid)
{
	return (struct lua_frame){ FRAME_KIND_FF << FRAME_KIND_SHIFT | (uint64_t)ffid, 0, 0 };
}

static inline const char *put_frame(const struct frame_sym *f, char c)
{
	static struct strbuf sb[4];
	static int next;
	struct strbuf *b = &sb[next++ & 3];

	sb_reset(b);
	frame_put(b, f, c, true);
	return sb_str(b);
}

static struct symbolizer *sym;
static struct frame_sym out[300];

static inline void run(const struct lua_frame *fr, uint32_t n)
{
	sym_next_epoch(sym);
	sym_stack(sym, fr, n, out);
}

/* A callee: lines 10..13, current line 11 at pos 1. */
static const uint32_t callee_bc[] = { INS_AD(OP_FUNCF, 2, 0), INS_AD(OP_KPRI, 0, 1),
				      INS_AD(OP_RET0, 0, 1) };
static const uint8_t callee_li[] = { 1, 3 };
static uint64_t callee;

/* A caller's frame list [callee at pos 1, caller at pos]. */
static inline void call_from(uint64_t caller, int pos)
{
	struct lua_frame fr[2] = { lua_at(callee, 1), lua_at(caller, pos) };

	run(fr, 2);
}

/* Maps the image and makes the symbolizer and the callee every test uses. */
static inline struct mem_reader *image_setup(void)
{
	struct mem_reader *m;
	struct pspec c = { .chunk = "@/tmp/dir/t.lua", .firstline = 10, .numline = 3,
			   .bc = callee_bc, .sizebc = 3, .lineinfo = callee_li };

	lay = layout_at(0);
	CHECK("layout 0 is upstream GC64", lay && lay->gc64 && !lay->openresty && !lay->vmthref);
	img = calloc(1, IMG_SIZE);
	if (!img)
		exit(1);
	regions[0] = (struct mem_region){ BASE, img, IMG_SIZE };
	regions[1] = (struct mem_region){ SPARE, spare, SPARE_SIZE };
	m = mem_open_image(regions, 2);
	sym = sym_new(m, lay, NULL);
	callee = mkproto(&c);
	return m;
}

static inline void image_teardown(struct mem_reader *m)
{
	sym_free(sym);
	mem_close(m);
	free(img);
}

#endif
