/* The symbolizer on a synthetic memory image: GCprotos with bytecode,
 * constants, lineinfo, varinfo and uvinfo laid out as LuaJIT does
 * (upstream GC64, layout_at(0)), named by LuaJIT's f/F/l rules; freed and
 * reused prototypes are revalidated and counted as unknown. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/frame_fmt.h"
#include "target/layout.h"
#include "target/memory.h"
#include "symbolize/symbolize.h"
#include "target/vmdef.h"
#include "base/unit.h"

#define BASE		0x7f5500000000ull
#define IMG_SIZE	(256 * 1024)
#define SPARE		0x7f5600000000ull	/* a second region: freed, reused */
#define SPARE_SIZE	4096

/* Opcodes (upstream before 2025, luajit-internals §4.1). */
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

static uint8_t *at(uint64_t a)
{
	if (a >= SPARE && a < SPARE + SPARE_SIZE)
		return spare + (a - SPARE);
	return img + (a - BASE);
}

static void put(uint64_t a, uint64_t v, int width)
{
	for (int i = 0; i < width; i++)
		at(a)[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t alloc(size_t n)
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
static void write_str(uint64_t a, const char *s, size_t len)
{
	static uint32_t next_sid = 1000;

	put(a + lay->gct, 4, 1);
	put(a + lay->str_sid, next_sid++, 4);
	put(a + lay->str_len, len, 4);
	memcpy(at(a + lay->str_data), s, len);
	at(a + lay->str_data)[len] = 0;
}

static uint64_t mkstr_n(const char *s, size_t len)
{
	uint64_t a = alloc(lay->str_data + len + 1);

	write_str(a, s, len);
	return a;
}

static uint64_t mkstr(const char *s)
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
static void write_header(uint64_t pt, const struct pspec *p, uint64_t chunk, uint64_t k,
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
static uint64_t mkproto_at(const struct pspec *p, uint64_t where)
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
	return pt;
}

static uint64_t mkproto(const struct pspec *p)
{
	return mkproto_at(p, 0);
}

/* The fingerprint the sampler would take of the prototype at pt now. */
static uint32_t fingerprint_of(uint64_t pt)
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
static struct lua_frame lua_at(uint64_t pt, int pos)
{
	struct lua_frame f = { FRAME_KIND_LUA << FRAME_KIND_SHIFT | pt, 0, 0 };

	if (pos >= 0)
		f.pc_off = lay->sizeof_proto + 4u * (uint32_t)(pos + 1);
	return f;
}

static struct lua_frame c_frame(uint64_t fn)
{
	return (struct lua_frame){ FRAME_KIND_C << FRAME_KIND_SHIFT | fn, 0, 0 };
}

static struct lua_frame ff_frame(int ffid)
{
	return (struct lua_frame){ FRAME_KIND_FF << FRAME_KIND_SHIFT | (uint64_t)ffid, 0, 0 };
}

static const char *put_frame(const struct frame_sym *f, char c)
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

static void run(const struct lua_frame *fr, uint32_t n)
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
static void call_from(uint64_t caller, int pos)
{
	struct lua_frame fr[2] = { lua_at(callee, 1), lua_at(caller, pos) };

	run(fr, 2);
}

static void names(void)
{
	static const uint8_t li[] = { 1, 2, 3, 4, 5, 6, 7 };

	/* global: GGET 0 "gfunc"; CALL 0 */
	static const uint32_t g_bc[] = { INS_AD(OP_FUNCF, 2, 0), INS_AD(OP_GGET, 0, 0),
					 INS_ABC(OP_CALL, 0, 1, 1), INS_AD(OP_RET0, 0, 1) };
	static const char *const g_k[] = { "gfunc" };
	struct pspec g = { .chunk = "@/tmp/dir/t.lua", .firstline = 1, .numline = 20,
			   .bc = g_bc, .sizebc = 4, .kstr = g_k, .nk = 1, .lineinfo = li };
	uint64_t pg = mkproto(&g);

	call_from(pg, 2);
	CHECK_STR("global: f", put_frame(&out[0], 'f'), "gfunc");
	CHECK_STR("global: F", put_frame(&out[0], 'F'), "t.lua:gfunc");
	CHECK_STR("global: l (callee's current line)", put_frame(&out[0], 'l'), "t.lua:11");
	CHECK_STR("bottom frame: f falls back to chunk:firstline", put_frame(&out[1], 'f'),
		  "t.lua:1");
	CHECK_STR("bottom frame: l is the call site's line", put_frame(&out[1], 'l'), "t.lua:3");
	CHECK("the chunk is kept as stored", out[0].chunk && !strcmp(out[0].chunk, "@/tmp/dir/t.lua"));

	/* local: FNEW 0; CALL 0, slot 0 is the local "myloc" over 1..5. */
	{
		static const uint32_t bc[] = { INS_AD(OP_FUNCF, 2, 0), INS_AD(OP_FNEW, 0, 0),
					       INS_ABC(OP_CALL, 0, 1, 1), INS_AD(OP_RET0, 0, 1) };
		static const uint8_t vi[] = { 'm', 'y', 'l', 'o', 'c', 0, 1, 5, 0 };
		struct pspec p = { .chunk = "@t.lua", .firstline = 1, .numline = 20, .bc = bc,
				   .sizebc = 4, .lineinfo = li, .varinfo = vi,
				   .varinfo_len = sizeof(vi) };

		call_from(mkproto(&p), 2);
		CHECK_STR("local: f", put_frame(&out[0], 'f'), "myloc");
		CHECK_STR("local: F", put_frame(&out[0], 'F'), "t.lua:myloc");
	}
	/* method: MOV 2 1; TGETS 0 1 "meth"; CALL 0 (obj:meth()). */
	{
		static const uint32_t bc[] = { INS_AD(OP_FUNCF, 3, 0), INS_AD(OP_MOV, 2, 1),
					       INS_ABC(OP_TGETS, 0, 1, 0), INS_ABC(OP_CALL, 0, 1, 2),
					       INS_AD(OP_RET0, 0, 1) };
		static const char *const k[] = { "meth" };
		struct pspec p = { .chunk = "@t.lua", .firstline = 1, .numline = 20, .bc = bc,
				   .sizebc = 5, .kstr = k, .nk = 1, .lineinfo = li };

		call_from(mkproto(&p), 3);
		CHECK_STR("method: f", put_frame(&out[0], 'f'), "meth");
	}
	/* field: GGET 0 "tbl"; TGETS 0 0 "fld"; CALL 0 (tbl.fld()). */
	{
		static const uint32_t bc[] = { INS_AD(OP_FUNCF, 2, 0), INS_AD(OP_GGET, 0, 1),
					       INS_ABC(OP_TGETS, 0, 0, 0), INS_ABC(OP_CALL, 0, 1, 1),
					       INS_AD(OP_RET0, 0, 1) };
		static const char *const k[] = { "fld", "tbl" };
		struct pspec p = { .chunk = "@t.lua", .firstline = 1, .numline = 20, .bc = bc,
				   .sizebc = 5, .kstr = k, .nk = 2, .lineinfo = li };

		call_from(mkproto(&p), 3);
		CHECK_STR("field: f", put_frame(&out[0], 'f'), "fld");
	}
	/* upvalue: UGET 0 1; CALL 0 with upvalues "u0", "uvfunc". */
	{
		static const uint32_t bc[] = { INS_AD(OP_FUNCF, 2, 0), INS_AD(OP_UGET, 0, 1),
					       INS_ABC(OP_CALL, 0, 1, 1), INS_AD(OP_RET0, 0, 1) };
		static const char uv[] = "u0\0uvfunc";
		struct pspec p = { .chunk = "@t.lua", .firstline = 1, .numline = 20, .bc = bc,
				   .sizebc = 4, .lineinfo = li, .uvinfo = uv,
				   .uvinfo_len = sizeof(uv), .sizeuv = 2 };

		call_from(mkproto(&p), 2);
		CHECK_STR("upvalue: f", put_frame(&out[0], 'f'), "uvfunc");
	}
	/* metamethods: called from TGETS (__index), ADDVV (__add), CAT. */
	{
		static const uint32_t bc[] = { INS_AD(OP_FUNCF, 3, 0), INS_ABC(OP_TGETS, 0, 1, 0),
					       INS_ABC(OP_ADDVV, 0, 1, 2), INS_ABC(OP_CAT, 0, 1, 2),
					       INS_AD(OP_RET0, 0, 1) };
		static const char *const k[] = { "key" };
		struct pspec p = { .chunk = "@t.lua", .firstline = 1, .numline = 20, .bc = bc,
				   .sizebc = 5, .kstr = k, .nk = 1, .lineinfo = li };
		uint64_t pt = mkproto(&p);

		call_from(pt, 1);
		CHECK_STR("metamethod __index: f", put_frame(&out[0], 'f'), "__index");
		CHECK_STR("metamethod __index: F", put_frame(&out[0], 'F'), "t.lua:__index");
		call_from(pt, 2);
		CHECK_STR("metamethod __add: f", put_frame(&out[0], 'f'), "__add");
		call_from(pt, 3);
		CHECK_STR("metamethod __concat: f", put_frame(&out[0], 'f'), "__concat");
	}
	/* generic for: ITERC 3 with (for generator/state/control) in 0..2. */
	{
		static const uint32_t bc[] = { INS_AD(OP_FUNCF, 6, 0), INS_AD(OP_KPRI, 0, 0),
					       INS_ABC(OP_ITERC, 3, 3, 3), INS_AD(OP_RET0, 0, 1) };
		static const uint8_t vi[] = { 4, 1, 5, 5, 0, 5, 6, 0, 5, 0 };
		struct pspec p = { .chunk = "@t.lua", .firstline = 1, .numline = 20, .bc = bc,
				   .sizebc = 4, .lineinfo = li, .varinfo = vi,
				   .varinfo_len = sizeof(vi) };

		call_from(mkproto(&p), 2);
		CHECK_STR("(for generator): f", put_frame(&out[0], 'f'), "(for generator)");
		CHECK_STR("(for generator): F", put_frame(&out[0], 'F'), "t.lua:(for generator)");
	}
	/* No derivable name: the slot came from KPRI. */
	{
		static const uint32_t bc[] = { INS_AD(OP_FUNCF, 2, 0), INS_AD(OP_KPRI, 0, 0),
					       INS_ABC(OP_CALL, 0, 1, 1), INS_AD(OP_RET0, 0, 1) };
		struct pspec p = { .chunk = "@t.lua", .firstline = 1, .numline = 20, .bc = bc,
				   .sizebc = 4, .lineinfo = li };

		call_from(mkproto(&p), 2);
		CHECK_STR("no name from the call site: f falls back to chunk:firstline",
			  put_frame(&out[0], 'f'), "t.lua:10");
		CHECK_STR("no name from the call site: F", put_frame(&out[0], 'F'), "t.lua:10");
		CHECK("no name: name is NULL", out[0].name == NULL);
	}
	/* Called from C (pcall, sort ...): no name, chunk:firstline. */
	{
		struct lua_frame fr[2] = { lua_at(callee, 1), c_frame(0x55b303d132c0ull) };

		run(fr, 2);
		CHECK_STR("called from C: f is chunk:firstline", put_frame(&out[0], 'f'),
			  "t.lua:10");
		CHECK_STR("C function: @0x...", put_frame(&out[1], 'f'), "@0x55b303d132c0");
	}
	/* The caller's PC is unknown (0): no name. */
	call_from(pg, -1);
	CHECK_STR("caller PC unknown: fallback", put_frame(&out[0], 'f'), "t.lua:10");
	/* A caller PC outside its bytecode: no name, and l of that frame
	 * prints the first line. */
	{
		struct lua_frame fr[2] = { lua_at(callee, 1), lua_at(pg, 500) };

		run(fr, 2);
		CHECK_STR("caller PC out of range: fallback", put_frame(&out[0], 'f'), "t.lua:10");
		CHECK_STR("PC out of range: l is firstline", put_frame(&out[1], 'l'), "t.lua:1");
		CHECK("PC out of range: line unknown", out[1].line == -1);
	}
	/* Misaligned PC. */
	{
		struct lua_frame fr[1] = { lua_at(callee, 1) };

		fr[0].pc_off += 2;
		run(fr, 1);
		CHECK("misaligned PC: line unknown", out[0].line == -1);
	}
}

static void chunks(void)
{
	static const uint8_t li[] = { 1, 2 };
	static const uint32_t bc[] = { INS_AD(OP_FUNCF, 2, 0), INS_AD(OP_KPRI, 0, 0),
				       INS_AD(OP_RET0, 0, 1) };
	struct pspec p = { .firstline = 5, .numline = 2, .bc = bc, .sizebc = 3, .lineinfo = li };
	struct lua_frame fr[1];
	static char big[10 * 1024 + 2];

	p.chunk = "local x = 1\nreturn x";
	fr[0] = lua_at(mkproto(&p), 1);
	run(fr, 1);
	CHECK_STR("[string]: f", put_frame(&out[0], 'f'), "[string]:5");
	CHECK_STR("[string]: l", put_frame(&out[0], 'l'), "[string]:6");

	p.chunk = "=stdin";
	fr[0] = lua_at(mkproto(&p), 1);
	run(fr, 1);
	CHECK_STR("=name chunk", put_frame(&out[0], 'l'), "stdin:6");

	p.chunk = "@main.lua";
	p.firstline = 0;
	fr[0] = lua_at(mkproto(&p), 0);
	run(fr, 1);
	CHECK_STR("main chunk: f", put_frame(&out[0], 'f'), "main.lua:0");
	CHECK_STR("main chunk: l at the header", put_frame(&out[0], 'l'), "main.lua:0");

	/* Builtin bytecode: firstline -1, the chunk is the function name. */
	p.chunk = "foreach";
	p.firstline = -1;
	fr[0] = lua_at(mkproto(&p), 1);
	run(fr, 1);
	CHECK_STR("builtin bytecode: f", put_frame(&out[0], 'f'), "[builtin:foreach]");
	CHECK_STR("builtin bytecode: l", put_frame(&out[0], 'l'), "[builtin:foreach]");

	/* Stripped bytecode: no lineinfo, varinfo or uvinfo. */
	p.chunk = "=stripped";
	p.firstline = 0;
	p.lineinfo = NULL;
	fr[0] = lua_at(mkproto(&p), 1);
	run(fr, 1);
	CHECK_STR("stripped bytecode: line 0", put_frame(&out[0], 'l'), "stripped:0");
	CHECK("stripped bytecode: line is 0", out[0].line == 0);

	/* 4-byte lineinfo (numline >= 65536) with garbage that would push
	 * firstline + delta past INT_MAX: unknown, not a wrapped number
	 * (found by fuzz_symbolize). */
	{
		static const uint8_t li4[] = { 0x38, 0x4e, 0xed, 0x43, 0, 0, 0, 0 };
		struct pspec q = { .chunk = "@big.lua", .firstline = 1903260017, .numline = 70000,
				   .bc = bc, .sizebc = 3, .lineinfo = li4 };

		fr[0] = lua_at(mkproto(&q), 1);
		run(fr, 1);
		CHECK("line past INT_MAX: unknown", out[0].kind == FRAME_LUA && out[0].line == -1);
		q.firstline = 5;
		fr[0] = lua_at(mkproto(&q), 2);	/* pos == sizebc - 1: delta 0 */
		run(fr, 1);
		CHECK("4-byte lineinfo read", out[0].line == 5);
	}

	/* Names with bytes that every exporter must escape come through as
	 * stored: escaping is the exporters' job. */
	p.chunk = "@odd;name\n<a>&\xff\xfe.lua";
	p.firstline = 7;
	p.lineinfo = li;
	fr[0] = lua_at(mkproto(&p), 1);
	run(fr, 1);
	CHECK_STR("odd bytes kept as stored", put_frame(&out[0], 'l'), "odd;name\n<a>&\xff\xfe.lua:8");

	/* A 10 KB chunk name. */
	big[0] = '@';
	memset(big + 1, 'x', sizeof(big) - 2);
	p.chunk = big;
	fr[0] = lua_at(mkproto(&p), 1);
	run(fr, 1);
	CHECK("10 KB chunk name kept whole",
	      out[0].chunk && strlen(out[0].chunk) == sizeof(big) - 1 &&
	      strlen(put_frame(&out[0], 'l')) == sizeof(big) - 2 + 2);
}

static void builtins(void)
{
	static char *names[100];
	struct vmdef vd = { .ffnames = names, .nff = 100 };
	struct lua_frame fr[2] = { ff_frame(93), lua_at(callee, 1) };
	struct mem_reader *m = mem_open_image(regions, 2);
	struct symbolizer *with_vd = sym_new(m, lay, &vd);

	for (int i = 0; i < 100; i++)
		names[i] = NULL;
	names[93] = "table.sort";
	run(fr, 1);
	CHECK_STR("fast function without vmdef: [builtin#93]", put_frame(&out[0], 'f'),
		  "[builtin#93]");
	sym_next_epoch(with_vd);
	sym_stack(with_vd, fr, 1, out);
	CHECK_STR("fast function with vmdef: its name", put_frame(&out[0], 'f'), "table.sort");
	fr[0] = ff_frame(150);
	sym_stack(with_vd, fr, 1, out);
	CHECK_STR("fast function beyond vmdef's table: [builtin#150]", put_frame(&out[0], 'f'),
		  "[builtin#150]");
	sym_free(with_vd);
	mem_close(m);
}

/* Prototypes freed between sampling and symbolization: their memory is
 * unmapped, or reused by another object or another prototype. */
static void reuse(void)
{
	static const uint8_t li[] = { 1, 2 };
	static const uint32_t bc[] = { INS_AD(OP_FUNCF, 2, 0), INS_AD(OP_KPRI, 0, 0),
				       INS_AD(OP_RET0, 0, 1) };
	struct pspec a = { .chunk = "@first.lua", .firstline = 10, .numline = 2, .bc = bc,
			   .sizebc = 3, .lineinfo = li };
	struct pspec b = a;
	struct lua_frame fr[1] = { lua_at(SPARE, 1) };
	uint64_t unknown;

	mkproto_at(&a, SPARE);
	run(fr, 1);
	CHECK_STR("live proto named", put_frame(&out[0], 'l'), "first.lua:11");

	/* Reused by another prototype: revalidation names the new one, never
	 * the cached chunk with the new line. */
	b.chunk = "@second.lua";
	b.firstline = 30;
	mkproto_at(&b, SPARE);
	run(fr, 1);
	CHECK_STR("reused by another proto: the new name, not the cached one",
		  put_frame(&out[0], 'l'), "second.lua:31");

	/* Same chunk string and lines, but the chunk pointer differs. */
	mkproto_at(&b, SPARE);
	run(fr, 1);
	CHECK_STR("rebuilt proto with a new chunk string", put_frame(&out[0], 'l'),
		  "second.lua:31");

	/* Reused by another kind of object (a table): unknown, counted. */
	unknown = sym_unknown_count(sym);
	spare[lay->gct] = 11;
	run(fr, 1);
	CHECK("reused by a table: unknown frame", out[0].kind == FRAME_UNKNOWN);
	CHECK_STR("unknown frame prints its cause", put_frame(&out[0], 'f'),
		  "[unknown: unresolved]");
	CHECK("reused by a table: counted", sym_unknown_count(sym) == unknown + 1);

	/* The page was unmapped. */
	mkproto_at(&a, SPARE);
	run(fr, 1);
	CHECK_STR("mapped again", put_frame(&out[0], 'l'), "first.lua:11");
	regions[1].len = 0;
	run(fr, 1);
	CHECK("unmapped: unknown frame", out[0].kind == FRAME_UNKNOWN);
	CHECK("unmapped: counted", sym_unknown_count(sym) == unknown + 2);
	regions[1].len = SPARE_SIZE;

	/* Garbage in the header: no bytecode, absurd size, no chunk name. */
	mkproto_at(&a, SPARE);
	put(SPARE + lay->pt_sizebc, 0, 4);
	run(fr, 1);
	CHECK("sizebc 0: unknown", out[0].kind == FRAME_UNKNOWN);
	put(SPARE + lay->pt_sizebc, 0xffffffffu, 4);
	run(fr, 1);
	CHECK("sizebc huge: unknown", out[0].kind == FRAME_UNKNOWN);
	put(SPARE + lay->pt_sizebc, 3, 4);
	put(SPARE + lay->pt_chunkname, 0, 8);
	run(fr, 1);
	CHECK("no chunk name: unknown", out[0].kind == FRAME_UNKNOWN);
	put(SPARE + lay->pt_chunkname, 0x10, 8);
	run(fr, 1);
	CHECK("chunk name unreadable: unknown", out[0].kind == FRAME_UNKNOWN);

	/* Freed memory that passes for a prototype: the allocator's links
	 * over the GC header leave gct == 7 now and then, but not the mark
	 * bits or the block's order (found under churn). */
	mkproto_at(&a, SPARE);
	run(fr, 1);
	CHECK_STR("intact again", put_frame(&out[0], 'l'), "first.lua:11");
	spare[lay->gct - 1] = 0xc8;	/* marked: a pointer byte */
	run(fr, 1);
	CHECK("freed: garbage mark bits: unknown", out[0].kind == FRAME_UNKNOWN);
	spare[lay->gct - 1] = 0x03;	/* both whites */
	run(fr, 1);
	CHECK("freed: both whites: unknown", out[0].kind == FRAME_UNKNOWN);
	spare[lay->gct - 1] = 0x04;	/* black: fine */
	put(SPARE + lay->pt_sizebc, 0x7f69, 4);	/* a pointer's upper half */
	run(fr, 1);
	CHECK("freed: bytecode running past the constants: unknown", out[0].kind == FRAME_UNKNOWN);
	put(SPARE + lay->pt_sizebc, 3, 4);
	put(SPARE + lay->pt_lineinfo, SPARE + 8, 8);	/* below k */
	run(fr, 1);
	CHECK("freed: line info below the constants: unknown", out[0].kind == FRAME_UNKNOWN);

	/* A frame kind the decoder does not know. */
	fr[0].id = 0x7full << FRAME_KIND_SHIFT | 1234;
	unknown = sym_unknown_count(sym);
	run(fr, 1);
	CHECK("unknown frame kind: unknown, counted",
	      out[0].kind == FRAME_UNKNOWN && sym_unknown_count(sym) == unknown + 1);
	/* An address nowhere near the image. */
	fr[0] = lua_at(0xdeadbeef000ull, 1);
	run(fr, 1);
	CHECK("proto address unmapped: unknown", out[0].kind == FRAME_UNKNOWN);
}

/* A prototype that dies while its parts are read one after the other: a
 * part read after its header changed (the allocator writes over a freed
 * object) is dropped, never paired with the cached name.  The lazy parts
 * (lines, bytecode) are read on first use, which may come later in the
 * same drain. */
/* Frames carry the fingerprint their prototype had at the sample instant:
 * a prototype whose header survived its death while its chunk name's
 * memory took a new string must not be named by that new string. */
static void fingerprints(void)
{
	static const uint8_t li[] = { 1, 2 };
	static const uint32_t bc[] = { INS_AD(OP_FUNCF, 2, 0), INS_AD(OP_KPRI, 0, 0),
				       INS_AD(OP_RET0, 0, 1) };
	struct pspec a = { .chunk = "@gen12.lua", .firstline = 13, .numline = 2, .bc = bc,
			   .sizebc = 3, .lineinfo = li };
	struct pspec b = a;
	struct lua_frame fr[1] = { lua_at(SPARE, 1) };
	uint64_t chunk = 0, unknown;
	uint32_t fp_a, fp_b;

	mkproto_at(&a, SPARE);
	fp_a = fr[0].fp = fingerprint_of(SPARE);
	CHECK("fingerprint taken", fp_a != 0);
	run(fr, 1);
	CHECK_STR("fingerprint matches: named", put_frame(&out[0], 'l'), "gen12.lua:14");

	/* Sampled alive, first read dead: the header stays, the chunk name's
	 * memory holds a new string. */
	mkproto_at(&a, SPARE);
	fr[0].fp = fingerprint_of(SPARE);
	memcpy(&chunk, at(SPARE + lay->pt_chunkname), 8);
	write_str(chunk, "@gen37.lua", 10);
	unknown = sym_unknown_count(sym);
	run(fr, 1);
	CHECK("string reused under a dead prototype: unknown, not gen37.lua:14",
	      out[0].kind == FRAME_UNKNOWN);
	CHECK("string reused under a dead prototype: counted",
	      sym_unknown_count(sym) == unknown + 1);
	sym_stack(sym, fr, 1, out);
	CHECK("string reused: unknown in the same epoch too", out[0].kind == FRAME_UNKNOWN);

	/* A new prototype there, and samples of both. */
	b.chunk = "@gen37.lua";
	b.firstline = 38;
	mkproto_at(&b, SPARE);
	fp_b = fingerprint_of(SPARE);
	CHECK("another prototype, another fingerprint", fp_b != fp_a);
	fr[0].fp = fp_b;
	run(fr, 1);
	CHECK_STR("the new prototype's sample: named", put_frame(&out[0], 'l'), "gen37.lua:39");
	fr[0].fp = fp_a;
	run(fr, 1);
	CHECK("the dead prototype's sample: unknown", out[0].kind == FRAME_UNKNOWN);

	/* A matching fingerprint needs no read: the sample saw that prototype. */
	fr[0].fp = fp_b;
	spare[lay->gct] = 11;
	sym_stack(sym, fr, 1, out);
	CHECK_STR("same epoch, fingerprint matches: cached name", put_frame(&out[0], 'l'),
		  "gen37.lua:39");
	run(fr, 1);
	CHECK_STR("next epoch, fingerprint matches: still the name the sample saw",
		  put_frame(&out[0], 'l'), "gen37.lua:39");
	fr[0].fp = fp_a;
	run(fr, 1);
	CHECK("memory gone, fingerprint differs: unknown", out[0].kind == FRAME_UNKNOWN);
}

static void dying(void)
{
	static const uint8_t li[] = { 1, 2, 3 };
	static const uint32_t bc[] = { INS_AD(OP_FUNCF, 2, 0), INS_AD(OP_GGET, 0, 0),
				       INS_ABC(OP_CALL, 0, 1, 1), INS_AD(OP_RET0, 0, 1) };
	static const char *const k[] = { "gfunc" };
	struct pspec p = { .chunk = "@dying.lua", .firstline = 40, .numline = 3, .bc = bc,
			   .sizebc = 4, .kstr = k, .nk = 1, .lineinfo = li };
	uint64_t pt = mkproto(&p), caller = mkproto(&p);
	struct lua_frame fr[2] = { lua_at(pt, -1), lua_at(caller, -1) };
	uint64_t str = mkstr("@odd.lua");

	run(fr, 1);
	CHECK_STR("dying: named while alive", put_frame(&out[0], 'f'), "dying.lua:40");
	put(pt + lay->gct, 0, 1);	/* freed: the header is overwritten */
	fr[0] = lua_at(pt, 1);
	sym_stack(sym, fr, 1, out);	/* same drain: lines read now */
	CHECK("dying: lines read after it died are not used", out[0].line == -1);

	fr[0] = lua_at(callee, 1);
	fr[1] = lua_at(caller, -1);
	run(fr, 2);
	put(caller + lay->gct, 0, 1);
	fr[1] = lua_at(caller, 2);
	sym_stack(sym, fr, 2, out);	/* same drain: bytecode read now */
	CHECK("dying: no call-site name from a caller that died", out[0].name == NULL);

	/* A prototype that is still its VM's newest GC object may be half
	 * built (new chunk name, old lines): not trusted until something
	 * newer exists. */
	{
		uint64_t g = alloc(512);

		p.chunk = "@new.lua";
		pt = mkproto(&p);
		sym_set_vm(sym, g);
		put(g + lay->g_gc_root, pt, 8);
		fr[0] = lua_at(pt, 1);
		run(fr, 1);
		CHECK("dying: the newest GC object is not trusted yet", out[0].kind == FRAME_UNKNOWN);
		put(g + lay->g_gc_root, pt + 4096, 8);
		run(fr, 1);
		CHECK_STR("dying: once something newer exists, named", put_frame(&out[0], 'f'),
			  "new.lua:40");
		sym_set_vm(sym, 0);
	}

	/* A dead prototype (the GC's other white) whose chunk name's memory
	 * holds a new string (the current white). */
	p.chunk = "@white.lua";
	pt = mkproto(&p);
	put(pt + lay->gct - 1, 0x01, 1);
	{
		uint64_t chunk = 0;

		memcpy(&chunk, at(pt + lay->pt_chunkname), 8);
		put(chunk + lay->gct - 1, 0x02, 1);
		fr[0] = lua_at(pt, 1);
		run(fr, 1);
		CHECK("dying: chunk name of another GC white: unknown", out[0].kind == FRAME_UNKNOWN);
		put(chunk + lay->gct - 1, 0x04, 1);	/* black: not swept yet */
		run(fr, 1);
		CHECK_STR("dying: a black chunk name is fine", put_frame(&out[0], 'f'),
			  "white.lua:40");
	}

	/* A chunk name whose memory now holds something else than a string. */
	p.chunk = "@x.lua";
	pt = mkproto(&p);
	put(pt + lay->pt_chunkname, str, 8);
	put(str + lay->gct, 11, 1);
	fr[0] = lua_at(pt, 1);
	run(fr, 1);
	CHECK("dying: a chunk name that is no longer a string: unknown",
	      out[0].kind == FRAME_UNKNOWN);
}

/* Prototypes that no drain used for a while leave the cache, so that memory
 * stays flat under churn; those in use stay.  Seen from outside: once its
 * chunk name is unreadable, an idle prototype named from the cache becomes
 * unknown, a busy one keeps its name. */
static void sweep(void)
{
	static const uint8_t li[] = { 1, 2 };
	static const uint32_t bc[] = { INS_AD(OP_FUNCF, 2, 0), INS_AD(OP_KPRI, 0, 0),
				       INS_AD(OP_RET0, 0, 1) };
	struct pspec a = { .chunk = "@x", .firstline = 3, .numline = 2, .bc = bc, .sizebc = 3,
			   .lineinfo = li };
	uint64_t idle = mkproto(&a), busy = mkproto(&a);
	struct lua_frame fi[1] = { lua_at(idle, 1) }, fb[1] = { lua_at(busy, 1) };
	int busy_named = 0;

	/* Their chunk names live in the spare region. */
	memset(spare, 0, sizeof(spare));
	put(SPARE + 2048 + lay->gct, 4, 1);
	put(SPARE + 2048 + lay->str_len, 9, 4);
	memcpy(spare + 2048 + lay->str_data, "@idle.lua", 9);
	put(SPARE + 2560 + lay->gct, 4, 1);
	put(SPARE + 2560 + lay->str_len, 9, 4);
	memcpy(spare + 2560 + lay->str_data, "@busy.lua", 9);
	put(idle + lay->pt_chunkname, SPARE + 2048, 8);
	put(busy + lay->pt_chunkname, SPARE + 2560, 8);
	regions[1].len = SPARE_SIZE;
	run(fi, 1);
	CHECK_STR("sweep: idle proto named", put_frame(&out[0], 'l'), "idle.lua:4");
	run(fb, 1);
	CHECK_STR("sweep: busy proto named", put_frame(&out[0], 'l'), "busy.lua:4");
	regions[1].len = 0;
	run(fi, 1);
	CHECK_STR("sweep: named from the cache while the chunk is unreadable",
		  put_frame(&out[0], 'l'), "idle.lua:4");
	for (int i = 0; i < 200; i++) {
		run(fb, 1);
		busy_named += out[0].kind == FRAME_LUA;
	}
	CHECK("sweep: a prototype used in every drain stays cached", busy_named == 200);
	run(fi, 1);
	CHECK("sweep: an idle prototype left the cache", out[0].kind == FRAME_UNKNOWN);
	regions[1].len = SPARE_SIZE;
}

/* A deep recursion: every frame but the bottom one is named by its caller. */
static void deep(void)
{
	static const uint8_t li[] = { 1, 2, 3 };
	static const uint32_t bc[] = { INS_AD(OP_FUNCF, 2, 0), INS_AD(OP_UGET, 0, 0),
				       INS_ABC(OP_CALL, 0, 1, 1), INS_AD(OP_RET0, 0, 1) };
	static const char uv[] = "dive";
	struct pspec p = { .chunk = "@rec.lua", .firstline = 3, .numline = 3, .bc = bc,
			   .sizebc = 4, .lineinfo = li, .uvinfo = uv, .uvinfo_len = sizeof(uv),
			   .sizeuv = 1 };
	uint64_t pt = mkproto(&p);
	static struct lua_frame fr[LBP_MAX_FRAMES];
	int named = 0;

	for (int i = 0; i < LBP_MAX_FRAMES; i++)
		fr[i] = lua_at(pt, 2);
	run(fr, LBP_MAX_FRAMES);
	for (int i = 0; i < LBP_MAX_FRAMES - 1; i++)
		named += out[i].name && !strcmp(out[i].name, "dive");
	CHECK("256 recursive frames named by their callers", named == LBP_MAX_FRAMES - 1);
	CHECK_STR("the bottom one falls back", put_frame(&out[LBP_MAX_FRAMES - 1], 'f'),
		  "rec.lua:3");
}

/* Where a trace starts: g->J.trace[n]->startpt/startpc. */
static void traces(void)
{
	uint64_t g = alloc(2048), traces = alloc(8 * 4), T = alloc(128);
	char buf[64];

	put(g + lay->g_trace, traces, 8);
	put(g + lay->g_sizetrace, 4, 4);
	put(traces + 8 * 2, T, 8);
	put(T + lay->tr_startpt, callee, 8);
	put(T + lay->tr_startpc, callee + lay->sizeof_proto + 4 * 2, 8);
	CHECK("trace 2 starts at callee:13",
	      !sym_trace_start(sym, g, 2, buf, sizeof(buf)) && !strcmp(buf, "t.lua:13"));
	CHECK("trace 1: free slot", sym_trace_start(sym, g, 1, buf, sizeof(buf)) == -1);
	CHECK("trace 4: beyond sizetrace", sym_trace_start(sym, g, 4, buf, sizeof(buf)) == -1);
	CHECK("trace 0 and negative: none", sym_trace_start(sym, g, 0, buf, sizeof(buf)) == -1 &&
	      sym_trace_start(sym, g, -3, buf, sizeof(buf)) == -1);
	put(traces + 8 * 3, T + 8, 8);	/* points at no trace: startpt is garbage */
	CHECK("trace with a garbage start proto: none",
	      sym_trace_start(sym, g, 3, buf, sizeof(buf)) == -1);
}

int main(void)
{
	struct mem_reader *m;
	struct pspec c = { .chunk = "@/tmp/dir/t.lua", .firstline = 10, .numline = 3,
			   .bc = callee_bc, .sizebc = 3, .lineinfo = callee_li };

	lay = layout_at(0);
	CHECK("layout 0 is upstream GC64", lay && lay->gc64 && !lay->openresty && !lay->vmthref);
	img = calloc(1, IMG_SIZE);
	if (!img)
		return 1;
	regions[0] = (struct mem_region){ BASE, img, IMG_SIZE };
	regions[1] = (struct mem_region){ SPARE, spare, SPARE_SIZE };
	m = mem_open_image(regions, 2);
	sym = sym_new(m, lay, NULL);
	callee = mkproto(&c);

	names();
	chunks();
	builtins();
	reuse();
	fingerprints();
	dying();
	sweep();
	deep();
	traces();

	sym_free(sym);
	mem_close(m);
	free(img);
	UNIT_EXIT();
}
