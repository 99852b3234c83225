// SPDX-License-Identifier: MIT
/* Counting both sides of a diff by view key (see diff_keys.h). */
#include "model/diff_keys.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

unsigned diff_view_needs(char view)
{
	switch (view) {
	case 'l':
		return SS_HAS_LINES;
	case 'v':
		return SS_HAS_VMSTATE;
	case 'z':
		return SS_HAS_ZONE;
	}
	return 0;
}

void diff_table_init(struct diff_table *t, char view)
{
	memset(t, 0, sizeof(*t));
	t->view = view;
	strtab_intern(&t->keys, "", 0);
}

void diff_table_free(struct diff_table *t)
{
	strtab_free(&t->keys);
	free(t->rows);
	memset(t, 0, sizeof(*t));
}

/* The sample's key as a string of s's table. */
static const char *key_of(const struct stackset *s, const struct ss_sample *sm, char view)
{
	const struct ss_frame *leaf;
	uint32_t id;

	if (view == 'v' || view == 'z') {
		id = view == 'v' ? sm->vmstate : sm->zone;
		return id ? strtab_str(&s->str, id) : "(none)";
	}
	if (!sm->n)
		return "[no frames]";
	leaf = &s->frames[sm->at + sm->n - 1];
	id = view == 'f' ? leaf->f : view == 'l' ? leaf->l : leaf->F;
	/* A frame without that name (a C function has no line) keeps its
	 * 'F' name, as jit.p prints it. */
	return strtab_str(&s->str, id ? id : leaf->F);
}

static struct diff_row *row_for(struct diff_table *t, const char *key)
{
	uint32_t id = strtab_intern(&t->keys, key, strlen(key));

	/* Keys are interned in row order: key id k is row k - 1. */
	if (id - 1 < t->nrows)
		return &t->rows[id - 1];
	if (t->nrows == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->rows = xrealloc(t->rows, t->cap * sizeof(*t->rows));
	}
	memset(&t->rows[t->nrows], 0, sizeof(t->rows[0]));
	t->rows[t->nrows].key = id;
	return &t->rows[t->nrows++];
}

void diff_table_count(struct diff_table *t, const struct stackset *s, enum diff_side side)
{
	for (size_t i = 0; i < s->nsamples; i++) {
		const struct ss_sample *sm = &s->samples[i];

		if (!sm->count)
			continue;
		row_for(t, key_of(s, sm, t->view))->count[side] += sm->count;
		t->total[side] += sm->count;
	}
}

static const struct diff_table *sort_table;

static int cmp_rows(const void *x, const void *y)
{
	const struct diff_row *a = x, *b = y;

	if (a->c.significant != b->c.significant)
		return a->c.significant ? -1 : 1;
	if (a->score != b->score)
		return a->score > b->score ? -1 : 1;
	if (fabs(a->c.d) != fabs(b->c.d))
		return fabs(a->c.d) > fabs(b->c.d) ? -1 : 1;
	return strcmp(strtab_str(&sort_table->keys, a->key), strtab_str(&sort_table->keys, b->key));
}

void diff_table_finish(struct diff_table *t, double z, const double span[2])
{
	/* A span below the total (more than one busy thread) would make a
	 * share above 1: the total bounds it from below. */
	for (int side = 0; side < 2; side++)
		t->span[side] = span && span[side] > (double)t->total[side] ? span[side] :
				(double)t->total[side];
	for (uint32_t i = 0; i < t->nrows; i++) {
		struct diff_row *r = &t->rows[i];

		diff_share(r->count[0], (uint64_t)ceil(t->span[0]), r->count[1],
			   (uint64_t)ceil(t->span[1]), z, &r->c);
		r->score = diff_share_score(&r->c);
	}
	sort_table = t;
	if (t->nrows)
		qsort(t->rows, t->nrows, sizeof(*t->rows), cmp_rows);
	sort_table = NULL;
}

const struct diff_row *diff_table_find(const struct diff_table *t, const char *key)
{
	uint32_t id = strtab_find(&t->keys, key, strlen(key));

	if (id == UINT32_MAX || !id)
		return NULL;
	for (uint32_t i = 0; i < t->nrows; i++)
		if (t->rows[i].key == id)
			return &t->rows[i];
	return NULL;
}

const char *diff_row_key(const struct diff_table *t, const struct diff_row *r)
{
	return strtab_str(&t->keys, r->key);
}
