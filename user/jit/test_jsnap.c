// SPDX-License-Identifier: MIT
/* Side exits (jit/jsnap.c): snapshots decoded for every row of the
 * layout table, corrupted maps refused, and side traces' parents found
 * from their start PC and SNAPCOUNT_DONE, ambiguity said. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "jit/jsnap.h"
#include "luajit/layout.h"
#include "base/unit.h"

#define PC0	0x7f0000102040ull

static void put(uint8_t *b, uint64_t v, int width)
{
	for (int i = 0; i < width; i++)
		b[i] = (uint8_t)(v >> (8 * i));
}

/* Three snapshots with 2, 0 and 1 entries; exit i resumes at PC0 + 4 * i
 * and was taken 10 * i times. */
static void parse_one(const struct lj_layout *lay)
{
	uint8_t snaps[3 * 16] = { 0 }, map[64] = { 0 };
	int pcw = lay->gc64 ? 2 : 1, nent[3] = { 2, 0, 1 }, at = 0;
	uint64_t pc0 = lay->gc64 ? PC0 : 0x40002040ull;
	struct jexit ex[3];
	char name[300];
	int n;

	for (int i = 0; i < 3; i++) {
		uint8_t *s = snaps + i * lay->sizeof_snap;
		uint64_t pc = pc0 + 4 * (uint64_t)i;

		put(s, (uint64_t)at, 4);
		s[lay->snap_nent] = (uint8_t)nent[i];
		s[lay->snap_count] = (uint8_t)(10 * i);
		at += nent[i];
		put(map + 4 * at, lay->gc64 ? pc << 8 | 3 : pc, 4 * pcw);
		at += pcw;
	}
	n = jsnap_parse(lay, snaps, 3, map, (size_t)at, ex, 3);
	snprintf(name, sizeof(name), "%s: three exits with their PCs and counts", lay->name);
	CHECK(name, n == 3 && ex[0].pc == pc0 && ex[1].pc == pc0 + 4 && ex[2].pc == pc0 + 8 &&
		    ex[2].count == 20 && ex[2].exitno == 2);
	snprintf(name, sizeof(name), "%s: a map cut short is refused", lay->name);
	CHECK(name, jsnap_parse(lay, snaps, 3, map, (size_t)at - 1, ex, 3) == -1);
	put(snaps + lay->sizeof_snap, 0xfffffff0u, 4);
	snprintf(name, sizeof(name), "%s: a wild mapofs is refused", lay->name);
	CHECK(name, jsnap_parse(lay, snaps, 3, map, (size_t)at, ex, 3) == -1);
}

static void parents(const struct lj_layout *lay)
{
	/* Root 1: exit 0 cold, exits 1 and 2 with side traces 2 and 3; side
	 * trace 2's exit 0 resumes where 1/1 does (as every side trace's
	 * exit 0 does) and has side trace 4.  Trace 6's two exits at 0x600
	 * both fit trace 7. */
	const struct jexit e1[] = { { 0, 3, 0x100, 0 }, { 1, 255, 0x200, 0 }, { 2, 255, 0x300, 0 } };
	const struct jexit e2[] = { { 0, 255, 0x200, 0 } };
	const struct jexit e6[] = { { 0, 255, 0x600, 0 }, { 1, 255, 0x600, 0 } };
	const struct jsnap_trace t[] = {
		{ 1, 0, 0x50, 0, e1, 3, false }, { 2, 1, 0x200, 0, e2, 1, false }, { 3, 1, 0x300, 0, NULL, 0, false },
		{ 4, 1, 0x200, 0, NULL, 0, false }, { 5, 9, 0x300, 0, NULL, 0, false },
		{ 6, 0, 0x40, 0, e6, 2, false }, { 7, 6, 0x600, 0, NULL, 0, false },
	};
	struct jsnap_link l[7];

	jsnap_parents(lay, t, 7, NULL, NULL, l);
	CHECK("root trace: no parent", l[0].found == JSNAP_NO_PARENT);
	CHECK("side trace 3 is 1/2", l[2].found == JSNAP_PARENT && l[2].parent == 1 &&
				     l[2].exitno == 2);
	CHECK("side trace 2 is 1/1 (its own exit 0 is not a choice)",
	      l[1].found == JSNAP_PARENT && l[1].parent == 1 && l[1].exitno == 1);
	CHECK("side trace 4 is 2/0 (1/1 is taken by 2)",
	      l[3].found == JSNAP_PARENT && l[3].parent == 2 && l[3].exitno == 0);
	CHECK("another root's exits are not looked at", l[4].found == JSNAP_NO_PARENT);
	CHECK("two exits fit trace 7: ambiguous", l[6].found == JSNAP_PARENT_AMBIGUOUS);
}

/* A chain of exit-0 side traces: 10 (root) -> 11 -> 12 -> 13, all
 * resuming at 0x900.  From PCs alone 11, 12 and 13 each have two or three
 * fits; the code of each parent jumps to its side trace's. */
static const uint64_t chain_jump[4] = { 0xb100, 0xb200, 0xb300, 0 };

static int chain_jumps(void *ctx, size_t idx, uint64_t target)
{
	(void)ctx;
	return idx < 4 && chain_jump[idx] == target ? JSNAP_JUMP_ANY_EXIT : JSNAP_NO_JUMP;
}

/* Trace 20's exits 1 and 2 both resume at 0xa00 and have side traces 21
 * and 22; its code jumps to 22 from offset 0x40, in exit 2's code. */
static int two_exits_jumps(void *ctx, size_t idx, uint64_t target)
{
	const struct jsnap_trace *t = ctx;

	if (idx != 0 || target != 0xc200)
		return JSNAP_NO_JUMP;
	return jsnap_exit_at(&t[0], 0x40);
}

static void two_exits(const struct lj_layout *lay)
{
	const struct jexit e[] = { { 0, 1, 0x100, 0 }, { 1, 255, 0xa00, 0x20 },
				   { 2, 255, 0xa00, 0x38 }, { 3, 0, 0xb00, 0x50 } };
	struct jsnap_trace t[] = {
		{ 20, 0, 0x100, 0xc000, e, 4, true }, { 22, 20, 0xa00, 0xc200, NULL, 0, false },
		{ 21, 20, 0xa00, 0xc100, NULL, 0, false },
	};
	struct jsnap_link l[3];

	jsnap_parents(lay, t, 3, two_exits_jumps, t, l);
	CHECK("two exits at one PC: the jump's mcofs picks 20/2 for 22, leaving 20/1 to 21",
	      l[1].found == JSNAP_PARENT && l[1].exitno == 2 && l[2].found == JSNAP_PARENT &&
	      l[2].exitno == 1);
	t[0].has_mcofs = false;
	jsnap_parents(lay, t, 3, two_exits_jumps, t, l);
	CHECK("... and without mcofs, both ambiguous",
	      l[1].found == JSNAP_PARENT_AMBIGUOUS && l[2].found == JSNAP_PARENT_AMBIGUOUS);
}

static void chain(const struct lj_layout *lay)
{
	const struct jexit e[] = { { 0, 255, 0x900, 0 } };
	const struct jsnap_trace t[] = {
		{ 10, 0, 0x800, 0xb000, e, 1, false }, { 11, 10, 0x900, 0xb100, e, 1, false },
		{ 12, 10, 0x900, 0xb200, e, 1, false }, { 13, 10, 0x900, 0xb300, NULL, 0, false },
	};
	struct jsnap_link l[4];
	uint8_t code[16] = { 0x90, 0x0f, 0x85 }, jmp[8] = { 0xe9 };
	int32_t rel = 0x1000 - 7;

	jsnap_parents(lay, t, 4, NULL, NULL, l);
	CHECK("exit-0 chain from PCs alone: 12 and 13 ambiguous",
	      l[2].found == JSNAP_PARENT_AMBIGUOUS && l[3].found == JSNAP_PARENT_AMBIGUOUS);
	jsnap_parents(lay, t, 4, chain_jumps, NULL, l);
	CHECK("exit-0 chain with the parents' jumps: 11 is 10/0, 12 is 11/0, 13 is 12/0",
	      l[1].found == JSNAP_PARENT && l[1].parent == 10 && l[2].found == JSNAP_PARENT &&
	      l[2].parent == 11 && l[3].found == JSNAP_PARENT && l[3].parent == 12);
	memcpy(code + 3, &rel, 4);
	CHECK("jne rel32 found", jsnap_x64_jump_to(code, sizeof(code), 0x5000, 0x6000) == 1);
	CHECK("another target is not", jsnap_x64_jump_to(code, sizeof(code), 0x5000, 0x6001) < 0);
	CHECK("cut short: not read past the end", jsnap_x64_jump_to(code, 5, 0x5000, 0x6000) < 0);
	rel = -5 - 0x100;
	memcpy(jmp + 1, &rel, 4);
	CHECK("jmp rel32 backwards", jsnap_x64_jump_to(jmp, 5, 0x5000, 0x5000 - 0x100) == 0);
}

static void put32(uint8_t *at, uint32_t w)
{
	for (int i = 0; i < 4; i++)
		at[i] = (uint8_t)(w >> (8 * i));
}

/* arm64: the body's branches, each form at its range's sign, and the exit
 * stubs after the code (both heads). */
static void a64_jumps(void)
{
	uint8_t code[20] = { 0 }, stubs[40] = { 0 };
	const uint32_t nop = 0xd503201f, str_lr = 0xf90003fe, ldr_lr = 0xf94002de, bl = 0x94000010;
	const uint32_t body[] = {
		nop,
		0x54000000u | 0x3ffu << 5 | 1,			/* b.ne 0x6000 from 0x5004 */
		0xb4000000u | (0x7ffffu & (uint32_t)-64) << 5,	/* cbz x0 0x4f08 from 0x5008 */
		0x36000000u | 3u << 19 | 61u << 5 | 1,		/* tbz w1, #3 0x5100 from 0x500c */
		0x14000000u | 0xffcu,				/* b 0x9000 from 0x5010 */
	};

	for (int i = 0; i < 5; i++)
		put32(code + 4 * i, body[i]);
	CHECK("a64 b.ne forward", jsnap_a64_jump_to(code, sizeof(code), 0x5000, 0x6000) == 4);
	CHECK("a64 cbz backward", jsnap_a64_jump_to(code, sizeof(code), 0x5000, 0x4f08) == 8);
	CHECK("a64 tbz", jsnap_a64_jump_to(code, sizeof(code), 0x5000, 0x5100) == 12);
	CHECK("a64 b", jsnap_a64_jump_to(code, sizeof(code), 0x5000, 0x9000) == 16);
	CHECK("a64: not read past the end", jsnap_a64_jump_to(code, 16, 0x5000, 0x9000) < 0);
	CHECK("a64: another target is not", jsnap_a64_jump_to(code, sizeof(code), 0x5000, 0x9004) < 0);
	/* nop, nop, str lr; bl handler; movz w0; stubs 0..3 at 0x7014 on:
	 * exit 2's is b 0x8000. */
	const uint32_t direct[] = { nop, nop, str_lr, bl, 0x528000a0, bl, bl,
				    0x14000000u | (0x8000 - 0x701c) / 4, bl };
	for (int i = 0; i < 9; i++)
		put32(stubs + 4 * i, direct[i]);
	CHECK("a64 stubs: exit 2 linked", jsnap_a64_stub_exit_to(stubs, 36, 0x7000, 4, 0x8000) == 2);
	CHECK("a64 stubs: only the first nstubs", jsnap_a64_stub_exit_to(stubs, 36, 0x7000, 2, 0x8000) < 0);
	CHECK("a64 stubs: cut short", jsnap_a64_stub_exit_to(stubs, 24, 0x7000, 4, 0x8000) < 0);
	/* str lr; ldr lr, [gl, ...]; blr lr; movz w0; exit 1's is b 0x8000. */
	const uint32_t indirect[] = { str_lr, ldr_lr, 0xd63f03c0, 0x528000a0, bl,
				      0x14000000u | (0x8000 - 0x7014) / 4 };
	memset(stubs, 0, sizeof(stubs));
	for (int i = 0; i < 6; i++)
		put32(stubs + 4 * i, indirect[i]);
	CHECK("a64 stubs, indirect head: exit 1 linked",
	      jsnap_a64_stub_exit_to(stubs, 24, 0x7000, 4, 0x8000) == 1);
}

/* This architecture's rules end to end: x86-64's jne in exit 2's code. */
static void exit_jumping(void)
{
	const struct jexit e[] = { { 0, 1, 0x100, 0 }, { 1, 255, 0xa00, 0x20 },
				   { 2, 255, 0xa00, 0x38 }, { 3, 0, 0xb00, 0x50 } };
	const struct jsnap_trace t = { 20, 0, 0x100, 0xc000, e, 4, true };
	uint8_t code[0x60] = { 0 };
	int32_t rel = 0x200 - 0x46;

	code[0x40] = 0x0f;
	code[0x41] = 0x85;
	memcpy(code + 0x42, &rel, 4);
#if defined(__x86_64__)
	CHECK("the exit jumping to a side trace: 2", jsnap_exit_jumping_to(&t, code, 0x60, 0x60, 0xc200) == 2);
	CHECK("no jump: none", jsnap_exit_jumping_to(&t, code, 0x60, 0x60, 0xc204) == JSNAP_NO_JUMP);
#else
	(void)t;
#endif
}

int main(void)
{
	int rows = 0;

	for (int i = 0; i < layout_count(); i++) {
		const struct lj_layout *lay = layout_at(i);

		if (!lay->snap_count)
			continue;
		rows++;
		parse_one(lay);
	}
	CHECK("every row with a JIT state knows its snapshots", rows == layout_count() - 1);
	parents(layout_at(0));
	chain(layout_at(0));
	two_exits(layout_at(0));
	a64_jumps();
	exit_jumping();
	UNIT_EXIT();
}
