/* Side exits (target/jsnap.c): snapshots decoded for every row of the
 * layout table, corrupted maps refused, and side traces' parents found
 * from their start PC and SNAPCOUNT_DONE, ambiguity said. */
#include <stdio.h>
#include <string.h>

#include "target/jsnap.h"
#include "target/layout.h"
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
	 * trace 2's exit 0 resumes where 1/1 does and has a side trace too. */
	const struct jexit e1[] = { { 0, 3, 0x100 }, { 1, 255, 0x200 }, { 2, 255, 0x300 } };
	const struct jexit e2[] = { { 0, 255, 0x200 } };
	const struct jsnap_trace t[] = {
		{ 1, 0, 0x50, e1, 3 }, { 2, 1, 0x200, e2, 1 }, { 3, 1, 0x300, NULL, 0 },
		{ 4, 1, 0x200, NULL, 0 }, { 5, 9, 0x300, NULL, 0 },
	};
	uint16_t p = 0, e = 0;

	CHECK("root trace: no parent", jsnap_parent(lay, t, 5, 0, &p, &e) == JSNAP_NO_PARENT);
	CHECK("side trace 3 is 1/2",
	      jsnap_parent(lay, t, 5, 2, &p, &e) == JSNAP_PARENT && p == 1 && e == 2);
	CHECK("side trace 4: 1/1 and 2/0 both fit",
	      jsnap_parent(lay, t, 5, 3, &p, &e) == JSNAP_PARENT_AMBIGUOUS);
	CHECK("another root's exits are not looked at",
	      jsnap_parent(lay, t, 5, 4, &p, &e) == JSNAP_NO_PARENT);
	CHECK("a trace is not its own parent (2 resumes at its own start)",
	      jsnap_parent(lay, t, 5, 1, &p, &e) == JSNAP_PARENT && p == 1 && e == 1);
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
	UNIT_EXIT();
}
