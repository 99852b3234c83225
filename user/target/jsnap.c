/* Reading a trace's snapshots (src/lj_jit.h SnapShot, src/lj_snap.c) out
 * of target memory: two reads, then a bounds-checked decode. */
#include "target/jsnap.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "target/jtrace.h"
#include "target/layout.h"
#include "target/memory.h"

static uint64_t ld(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

int jsnap_parse(const struct lj_layout *lay, const uint8_t *snaps, size_t nsnap,
		const uint8_t *map, size_t nmap, struct jexit *out, size_t max)
{
	size_t pcw = lay->gc64 ? 2 : 1, n = 0;

	if (!lay->sizeof_snap || !lay->snap_count || lay->snap_count >= lay->sizeof_snap ||
	    lay->snap_nent >= lay->sizeof_snap || lay->sizeof_snap < 4 || nsnap > JSNAP_MAX)
		return -1;
	for (size_t i = 0; i < nsnap && n < max; i++) {
		const uint8_t *s = snaps + i * lay->sizeof_snap;
		uint64_t at = ld(s, 4) + (uint64_t)s[lay->snap_nent], pc;

		if (at + pcw > nmap)
			return -1;
		pc = ld(map + at * 4, (int)(4 * pcw));
		if (lay->gc64)
			pc >>= 8;
		if (!pc)
			return -1;
		out[n++] = (struct jexit){ .exitno = (uint16_t)i, .count = s[lay->snap_count],
					   .pc = pc };
	}
	return (int)n;
}

int jsnap_read(struct mem_reader *mem, const struct lj_layout *lay, const struct jtrace *tr,
	       struct jexit *out, size_t max)
{
	uint8_t *snaps, *map;
	int n = -1;

	if (!tr->nsnap)
		return 0;
	if (!lay->sizeof_snap || tr->nsnap > JSNAP_MAX || tr->nsnapmap > JSNAP_MAP_MAX ||
	    !tr->snap || !tr->snapmap)
		return -1;
	snaps = xmalloc((size_t)tr->nsnap * lay->sizeof_snap);
	map = xmalloc((size_t)tr->nsnapmap * 4 + 1);
	if (!mem_read(mem, tr->snap, snaps, (size_t)tr->nsnap * lay->sizeof_snap) &&
	    !mem_read(mem, tr->snapmap, map, (size_t)tr->nsnapmap * 4))
		n = jsnap_parse(lay, snaps, tr->nsnap, map, tr->nsnapmap, out, max);
	free(snaps);
	free(map);
	return n;
}

enum jsnap_parent_found jsnap_parent(const struct lj_layout *lay, const struct jsnap_trace *all,
				     size_t n, size_t side, uint16_t *parent, uint16_t *exitno)
{
	const struct jsnap_trace *s = &all[side];
	int found = 0;

	if (!s->root || !lay->snapcount_done)
		return JSNAP_NO_PARENT;
	for (size_t i = 0; i < n; i++) {
		const struct jsnap_trace *t = &all[i];

		if (i == side || (t->traceno != s->root && t->root != s->root))
			continue;
		for (int e = 0; e < t->nexits; e++) {
			if (t->exits[e].pc != s->startpc || t->exits[e].count != lay->snapcount_done)
				continue;
			if (!found++) {
				*parent = t->traceno;
				*exitno = t->exits[e].exitno;
			}
		}
	}
	return found == 1 ? JSNAP_PARENT : found ? JSNAP_PARENT_AMBIGUOUS : JSNAP_NO_PARENT;
}
