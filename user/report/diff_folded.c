// SPDX-License-Identifier: MIT
/* difffolded lines (see diff_out.h): FlameGraph's difffolded.pl writes
 * "stack COUNT1 COUNT2" for two folded files, and flamegraph.pl draws
 * them as NEW's shape coloured by the change.  BASE's counts are scaled
 * to NEW's span here (its -n), so that a longer NEW does not look worse. */
#include "report/diff_out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/xalloc.h"
#include "report/export.h"

struct lines {
	struct strtab keys;
	uint64_t (*count)[2];
	uint32_t cap;
};

static void add_side(struct lines *l, const struct stackset *s, int side, struct strbuf *sb)
{
	for (size_t i = 0; i < s->nsamples; i++) {
		const struct ss_sample *sm = &s->samples[i];
		uint32_t id;

		sb_reset(sb);
		for (uint32_t k = 0; k < sm->n; k++) {
			const char *name = strtab_str(&s->str, s->frames[sm->at + k].F);

			if (k)
				sb_putc(sb, ';');
			export_folded_label(sb, name, strlen(name));
		}
		id = strtab_intern(&l->keys, sb_str(sb), sb->len);
		if (id >= l->cap) {
			uint32_t old = l->cap;

			l->cap = id * 2 + 64;
			l->count = xrealloc(l->count, l->cap * sizeof(*l->count));
			memset(l->count + old, 0, (l->cap - old) * sizeof(*l->count));
		}
		l->count[id][side] += sm->count;
	}
}

static const struct strtab *sort_keys;

static int cmp_ids(const void *a, const void *b)
{
	return strcmp(strtab_str(sort_keys, *(const uint32_t *)a),
		      strtab_str(sort_keys, *(const uint32_t *)b));
}

int diff_folded_write(FILE *f, const struct stackset *base, const struct stackset *now,
		      const double span[2])
{
	struct lines l = { STRTAB_INIT, NULL, 0 };
	struct strbuf sb = STRBUF_INIT;
	double scale = span[0] > 0 ? span[1] / span[0] : 0;
	uint32_t *order, n;

	add_side(&l, base, 0, &sb);
	add_side(&l, now, 1, &sb);
	n = l.keys.n;
	order = xmalloc((n + 1) * sizeof(*order));
	for (uint32_t i = 1; i < n; i++)
		order[i - 1] = i;
	sort_keys = &l.keys;
	qsort(order, n ? n - 1 : 0, sizeof(*order), cmp_ids);
	for (uint32_t i = 0; i + 1 < n; i++) {
		uint32_t id = order[i];

		fprintf(f, "%s %llu %llu\n", strtab_str(&l.keys, id),
			(unsigned long long)llround((double)l.count[id][0] * scale),
			(unsigned long long)l.count[id][1]);
	}
	free(order);
	free(l.count);
	strtab_free(&l.keys);
	sb_free(&sb);
	return ferror(f) ? -1 : 0;
}
