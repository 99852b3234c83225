// SPDX-License-Identifier: MIT
/* Functions inlined without a snapshot (jit/jinline.c): function
 * constants told from the frames of snapshots, for every row of the
 * layout table; other constants and broken maps refused. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "jit/jinline.h"
#include "luajit/layout.h"
#include "base/unit.h"

#define REF_BIAS	0x8000u
#define NK		(REF_BIAS - 12)
#define KGC		24
#define KNUM		30
#define T_FUNC		8
#define T_STR		4
#define FN_A		0x40001000u	/* inlined, no snapshot */
#define FN_B		0x40002000u	/* inlined, a frame of snapshot 1 */
#define FN_R		0x40003000u	/* the root's, replaced: slot 0 */
#define STR_K		0x40004000u

static void put(uint8_t *b, uint64_t v, int width)
{
	for (int i = 0; i < width; i++)
		b[i] = (uint8_t)(v >> (8 * i));
}

/* A constant at ref: opcode o, type t, payload v (GC64: in the next
 * instruction). */
static void konst(uint8_t *kir, const struct lj_layout *lay, uint32_t ref, uint8_t o, uint8_t t,
		  uint64_t v)
{
	uint8_t *ins = kir + (ref - NK) * 8;

	ins[4] = t;
	ins[5] = o;
	if (lay->gc64)
		put(ins + 8, v, 8);
	else
		put(ins, v, 4);
}

static uint32_t entry(uint32_t slot, uint32_t flags, uint32_t ref)
{
	return slot << 24 | flags | ref;
}

static const struct jinline_k *find(const struct jinline_k *k, int n, uint64_t fn)
{
	for (int i = 0; i < n; i++)
		if (k[i].fn == fn)
			return &k[i];
	return NULL;
}

static void one_layout(const struct lj_layout *lay)
{
	uint8_t kir[12 * 8] = { 0 }, snaps[2 * 16] = { 0 }, map[16 * 4] = { 0 };
	uint32_t rA = NK, rB = NK + 2, rR = NK + 4, rS = NK + 6, rL = NK + 8;
	struct jinline_k k[8];
	const struct jinline_k *a, *b, *r;
	char name[300];
	int n, at = 0;

	konst(kir, lay, rA, KGC, T_FUNC, FN_A);
	konst(kir, lay, rB, KGC, T_FUNC, FN_B);
	konst(kir, lay, rR, KGC, T_FUNC, FN_R);
	konst(kir, lay, rS, KGC, T_STR, STR_K);
	konst(kir, lay, rL, KNUM, 14, 0x1234);
	/* Snapshot 0: the root's function replaced (slot 0), a value that
	 * is A in slot 3 (a local holding it, not a frame). */
	put(snaps, 0, 4);
	snaps[lay->snap_nent] = 2;
	put(map + 4 * at++, entry(0, 0, rR), 4);
	put(map + 4 * at++, entry(3, 0, rA), 4);
	at += lay->gc64 ? 2 : 1;	/* the PC */
	/* Snapshot 1: B framed above the root. */
	put(snaps + lay->sizeof_snap, (uint64_t)at, 4);
	if (lay->gc64) {
		snaps[lay->sizeof_snap + lay->snap_nent] = 2;
		put(map + 4 * at++, entry(2, 0, rB), 4);
		put(map + 4 * at++, entry(3, 0x010000, rL), 4);
	} else {
		snaps[lay->sizeof_snap + lay->snap_nent] = 1;
		put(map + 4 * at++, entry(2, 0x010000, rB), 4);
	}
	at += lay->gc64 ? 2 : 1;
	n = jinline_parse(lay, kir, NK, snaps, 2, map, (size_t)at, k, 8);
	a = find(k, n, FN_A);
	b = find(k, n, FN_B);
	r = find(k, n, FN_R);
	snprintf(name, sizeof(name), "%s: three function constants, the string left out",
		 lay->name);
	CHECK(name, n == 3 && a && b && r && !find(k, n, STR_K));
	snprintf(name, sizeof(name), "%s: B and the root framed, A (a value in a slot) not",
		 lay->name);
	CHECK(name, a && b && r && !a->framed && b->framed && r->framed);
	snprintf(name, sizeof(name), "%s: a map cut short is refused", lay->name);
	CHECK(name, jinline_parse(lay, kir, NK, snaps, 2, map, (size_t)at - 4, k, 8) == -1);
	snprintf(name, sizeof(name), "%s: more constants than read is refused", lay->name);
	CHECK(name, jinline_parse(lay, kir, REF_BIAS - JINLINE_KMAX - 1, snaps, 2, map,
				  (size_t)at, k, 8) == -1);
	snprintf(name, sizeof(name), "%s: a frame entry pointing outside the constants is ignored",
		 lay->name);
	put(map + 4 * (lay->gc64 ? 4 : 3), entry(2, lay->gc64 ? 0 : 0x010000, 0x7fff), 4);
	n = jinline_parse(lay, kir, NK, snaps, 2, map, (size_t)at, k, 8);
	b = find(k, n, FN_B);
	CHECK(name, n == 3 && b && !b->framed);
	snprintf(name, sizeof(name), "%s: out holds at most max", lay->name);
	CHECK(name, jinline_parse(lay, kir, NK, snaps, 2, map, (size_t)at, k, 1) == 1);
}

int main(void)
{
	for (int i = 0; i < layout_count(); i++)
		if (layout_at(i)->sizeof_snap && layout_at(i)->tr_nk)
			one_layout(layout_at(i));
	UNIT_EXIT();
}
