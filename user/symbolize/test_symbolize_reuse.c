// SPDX-License-Identifier: MIT
/* Freed and reused prototypes are revalidated, fingerprinted and counted
 * as unknown; the cache sweeps what no drain uses; deep stacks
 * (test_symbolize_image.h builds the memory). */
#include "symbolize/test_symbolize_image.h"

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
	CHECK("reused by a table: unknown frame", out[0].kind == SYM_UNKNOWN);
	CHECK_STR("unknown frame prints its cause", put_frame(&out[0], 'f'),
		  "[unknown: unresolved]");
	CHECK("reused by a table: counted", sym_unknown_count(sym) == unknown + 1);

	/* The page was unmapped. */
	mkproto_at(&a, SPARE);
	run(fr, 1);
	CHECK_STR("mapped again", put_frame(&out[0], 'l'), "first.lua:11");
	regions[1].len = 0;
	run(fr, 1);
	CHECK("unmapped: unknown frame", out[0].kind == SYM_UNKNOWN);
	CHECK("unmapped: counted", sym_unknown_count(sym) == unknown + 2);
	regions[1].len = SPARE_SIZE;

	/* Garbage in the header: no bytecode, absurd size, no chunk name. */
	mkproto_at(&a, SPARE);
	put(SPARE + lay->pt_sizebc, 0, 4);
	run(fr, 1);
	CHECK("sizebc 0: unknown", out[0].kind == SYM_UNKNOWN);
	put(SPARE + lay->pt_sizebc, 0xffffffffu, 4);
	run(fr, 1);
	CHECK("sizebc huge: unknown", out[0].kind == SYM_UNKNOWN);
	put(SPARE + lay->pt_sizebc, 3, 4);
	put(SPARE + lay->pt_chunkname, 0, 8);
	run(fr, 1);
	CHECK("no chunk name: unknown", out[0].kind == SYM_UNKNOWN);
	put(SPARE + lay->pt_chunkname, 0x10, 8);
	run(fr, 1);
	CHECK("chunk name unreadable: unknown", out[0].kind == SYM_UNKNOWN);

	/* Freed memory that passes for a prototype: the allocator's links
	 * over the GC header leave gct == 7 now and then, but not the mark
	 * bits or the block's order (found under churn). */
	mkproto_at(&a, SPARE);
	run(fr, 1);
	CHECK_STR("intact again", put_frame(&out[0], 'l'), "first.lua:11");
	spare[lay->gct - 1] = 0xc8;	/* marked: a pointer byte */
	run(fr, 1);
	CHECK("freed: garbage mark bits: unknown", out[0].kind == SYM_UNKNOWN);
	spare[lay->gct - 1] = 0x03;	/* both whites */
	run(fr, 1);
	CHECK("freed: both whites: unknown", out[0].kind == SYM_UNKNOWN);
	spare[lay->gct - 1] = 0x04;	/* black: fine */
	put(SPARE + lay->pt_sizebc, 0x7f69, 4);	/* a pointer's upper half */
	run(fr, 1);
	CHECK("freed: bytecode running past the constants: unknown", out[0].kind == SYM_UNKNOWN);
	put(SPARE + lay->pt_sizebc, 3, 4);
	put(SPARE + lay->pt_lineinfo, SPARE + 8, 8);	/* below k */
	run(fr, 1);
	CHECK("freed: line info below the constants: unknown", out[0].kind == SYM_UNKNOWN);

	/* A frame kind the decoder does not know. */
	fr[0].id = 0x7full << FRAME_KIND_SHIFT | 1234;
	unknown = sym_unknown_count(sym);
	run(fr, 1);
	CHECK("unknown frame kind: unknown, counted",
	      out[0].kind == SYM_UNKNOWN && sym_unknown_count(sym) == unknown + 1);
	/* An address nowhere near the image. */
	fr[0] = lua_at(0xdeadbeef000ull, 1);
	run(fr, 1);
	CHECK("proto address unmapped: unknown", out[0].kind == SYM_UNKNOWN);
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
	uint32_t fp_a, fp_b, fp_a2;

	mkproto_at(&a, SPARE);
	fp_a = fr[0].fp = fingerprint_of(SPARE);
	CHECK("fingerprint taken", fp_a != 0);
	run(fr, 1);
	CHECK_STR("fingerprint matches: named", put_frame(&out[0], 'l'), "gen12.lua:14");

	/* Sampled alive, first read dead: the header stays, the chunk name's
	 * memory holds a new string. */
	mkproto_at(&a, SPARE);
	fp_a2 = fr[0].fp = fingerprint_of(SPARE);
	memcpy(&chunk, at(SPARE + lay->pt_chunkname), 8);
	write_str(chunk, "@gen37.lua", 10);
	unknown = sym_unknown_count(sym);
	run(fr, 1);
	CHECK("string reused under a dead prototype: unknown, not gen37.lua:14",
	      out[0].kind == SYM_UNKNOWN);
	CHECK("string reused under a dead prototype: counted",
	      sym_unknown_count(sym) == unknown + 1);
	sym_stack(sym, fr, 1, out);
	CHECK("string reused: unknown in the same epoch too", out[0].kind == SYM_UNKNOWN);

	/* A new prototype there, and samples of both. */
	b.chunk = "@gen37.lua";
	b.firstline = 38;
	mkproto_at(&b, SPARE);
	fp_b = fingerprint_of(SPARE);
	CHECK("another prototype, another fingerprint", fp_b != fp_a);
	fr[0].fp = fp_b;
	run(fr, 1);
	CHECK_STR("the new prototype's sample: named", put_frame(&out[0], 'l'), "gen37.lua:39");
	/* gen12 was read while it lived: its samples keep its name after
	 * two others took its address. */
	fr[0].fp = fp_a;
	run(fr, 1);
	CHECK_STR("the dead prototype's sample: the name it had", put_frame(&out[0], 'l'),
		  "gen12.lua:14");
	/* The prototype sampled when its string was reused was never read
	 * whole: unknown, never named after another that held the address. */
	fr[0].fp = fp_a2;
	run(fr, 1);
	CHECK("a dead prototype never read: unknown", out[0].kind == SYM_UNKNOWN);

	/* A matching fingerprint needs no read: the sample saw that prototype. */
	fr[0].fp = fp_b;
	spare[lay->gct] = 11;
	sym_stack(sym, fr, 1, out);
	CHECK_STR("same epoch, fingerprint matches: cached name", put_frame(&out[0], 'l'),
		  "gen37.lua:39");
	run(fr, 1);
	CHECK_STR("next epoch, fingerprint matches: still the name the sample saw",
		  put_frame(&out[0], 'l'), "gen37.lua:39");
	fr[0].fp = fp_a2;
	run(fr, 1);
	CHECK("memory gone, fingerprint never read: unknown", out[0].kind == SYM_UNKNOWN);
	fr[0].fp = fp_a;
	run(fr, 1);
	CHECK_STR("memory gone, a predecessor's fingerprint: its name", put_frame(&out[0], 'l'),
		  "gen12.lua:14");
}

/* Prototypes the sampler announced with a copy of their memory taken while
 * they ran (sym_prefetch): named from the copy once they died, with their
 * lines and the names their call sites give. */
static void prefetched(struct mem_reader *m)
{
	static const uint8_t li[] = { 1, 2, 3 };
	static const uint32_t bc[] = { INS_AD(OP_FUNCF, 2, 0), INS_AD(OP_UGET, 0, 0),
				       INS_ABC(OP_CALL, 0, 1, 1), INS_AD(OP_RET0, 0, 1) };
	struct pspec p = { .chunk = "@loaded.lua", .firstline = 5, .numline = 3, .bc = bc,
			   .sizebc = 4, .lineinfo = li, .uvinfo = "helper", .uvinfo_len = 7,
			   .sizeuv = 1 };
	uint64_t pt = mkproto(&p), chunk = 0;
	uint32_t fp = fingerprint_of(pt);
	static uint8_t block[512], str[64];
	struct mem_region copy[2];
	struct lua_frame fr[2];
	uint8_t buf[16];

	memcpy(&chunk, at(pt + lay->pt_chunkname), 8);
	memcpy(block, at(pt), sizeof(block));
	memcpy(str, at(chunk), sizeof(str));
	copy[0] = (struct mem_region){ pt, block, sizeof(block) };
	copy[1] = (struct mem_region){ chunk, str, lay->str_data + sizeof("@loaded.lua") };
	/* Freed before user space woke: the header and the chunk name's
	 * memory hold something else now. */
	put(pt + lay->gct, 0, 1);
	write_str(chunk, "@other.lua", 10);
	CHECK("prefetch: a dead prototype without a copy is not read",
	      sym_prefetch(sym, pt, fp, NULL, 0) == -1);
	CHECK("prefetch: read from the sampler's copy", sym_prefetch(sym, pt, fp, copy, 2) == 0);
	fr[0] = lua_at(callee, 1);
	fr[0].fp = fingerprint_of(callee);
	fr[1] = lua_at(pt, 2);
	fr[1].fp = fp;
	run(fr, 2);
	CHECK_STR("prefetch: the dead prototype and its line", put_frame(&out[1], 'l'),
		  "loaded.lua:7");
	CHECK_STR("prefetch: its call site names the callee (upvalue)",
		  out[0].name ? out[0].name : "(none)", "helper");
	fr[1].fp = fp ^ 1;
	run(fr, 2);
	CHECK("prefetch: another fingerprint at that address: unknown",
	      out[1].kind == SYM_UNKNOWN);

	/* The copy serves reads inside it; one across its edge would pair it
	 * with memory as it is now. */
	mem_set_overlay(m, copy, 2);
	CHECK("overlay: a read inside the copy", !mem_read(m, pt, buf, 16) && buf[lay->gct] == 7);
	CHECK("overlay: a read across its edge fails", mem_read(m, pt + sizeof(block) - 4, buf, 8));
	CHECK("overlay: a read outside it reads memory", !mem_read(m, BASE + 64, buf, 8));
	mem_set_overlay(m, NULL, 0);
	CHECK("overlay off: memory again", !mem_read(m, pt, buf, 16) && buf[lay->gct] == 0);
}

/* A call site's constant name read a GC cycle after its prototype's
 * header: the string's colour is compared with the prototype's colour now,
 * both having changed white since (found under moses: a whole function
 * unnamed for the rest of a run). */
static void whites_flip(void)
{
	static const uint32_t bc[] = { INS_AD(OP_FUNCF, 2, 0), INS_AD(OP_GGET, 0, 0),
				       INS_ABC(OP_CALL, 0, 1, 1), INS_AD(OP_RET0, 0, 1) };
	static const uint8_t li[] = { 1, 2, 3 };
	static const char *const k[] = { "gflip" };
	struct pspec p = { .chunk = "@flip.lua", .firstline = 3, .numline = 3, .bc = bc,
			   .sizebc = 4, .kstr = k, .nk = 1, .lineinfo = li };
	uint64_t pt = mkproto(&p), kref = 0, kaddr;
	struct lua_frame one[1] = { lua_at(pt, 1) }, two[2] = { lua_at(callee, 1), lua_at(pt, 2) };

	memcpy(&kaddr, at(pt + lay->pt_k), 8);
	memcpy(&kref, at(kaddr - 8), 8);
	put(pt + lay->gct - 1, 0x01, 1);
	put(kref + lay->gct - 1, 0x01, 1);
	run(one, 1);
	CHECK_STR("whites: the prototype read while white", put_frame(&out[0], 'l'), "flip.lua:4");
	put(pt + lay->gct - 1, 0x02, 1);	/* a cycle later: the other white */
	put(kref + lay->gct - 1, 0x02, 1);
	run(two, 2);
	CHECK_STR("whites: its call site named after the flip", out[0].name ? out[0].name : "(none)",
		  "gflip");
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
		CHECK("dying: the newest GC object is not trusted yet", out[0].kind == SYM_UNKNOWN);
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
		CHECK("dying: chunk name of another GC white: unknown", out[0].kind == SYM_UNKNOWN);
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
	      out[0].kind == SYM_UNKNOWN);
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
		busy_named += out[0].kind == SYM_LUA;
	}
	CHECK("sweep: a prototype used in every drain stays cached", busy_named == 200);
	run(fi, 1);
	CHECK("sweep: an idle prototype left the cache", out[0].kind == SYM_UNKNOWN);
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
int main(void)
{
	struct mem_reader *m = image_setup();

	reuse();
	fingerprints();
	dying();
	prefetched(m);
	whites_flip();
	sweep();
	deep();
	image_teardown(m);
	UNIT_EXIT();
}
