// SPDX-License-Identifier: MIT
/* Heap growth by reference path (see heap_diff.h).  A heap profile's
 * frame is named by its whole path; a sample is a path's own objects
 * (its leaf) and is held by every path above it (its frames). */
#include "report/heap_diff.h"

#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/textsafe.h"
#include "base/xalloc.h"
#include "model/strtab.h"

struct hpath {
	int64_t own[2], objects[2], held[2];
};

struct hdiff {
	struct strtab names;
	struct hpath *p;
	uint32_t cap;
};

static struct hpath *path_of(struct hdiff *h, const char *name)
{
	uint32_t id = strtab_intern(&h->names, name, strlen(name));

	if (id >= h->cap) {
		uint32_t old = h->cap;

		h->cap = id * 2 + 64;
		h->p = xrealloc(h->p, h->cap * sizeof(*h->p));
		memset(h->p + old, 0, (h->cap - old) * sizeof(*h->p));
	}
	return &h->p[id];
}

static void add_side(struct hdiff *h, const struct stackset *s, int side)
{
	for (size_t i = 0; i < s->nsamples; i++) {
		const struct ss_sample *sm = &s->samples[i];
		struct hpath *leaf = NULL;

		for (uint32_t k = 0; k < sm->n; k++) {
			leaf = path_of(h, strtab_str(&s->str, s->frames[sm->at + k].F));
			leaf->held[side] += (int64_t)sm->count;
		}
		if (!leaf)
			continue;
		leaf->own[side] += (int64_t)sm->count;
		leaf->objects[side] += (int64_t)sm->objects;
	}
}

static const struct hdiff *sort_h;

static int cmp_growth(const void *a, const void *b)
{
	const struct hpath *x = &sort_h->p[*(const uint32_t *)a], *y = &sort_h->p[*(const uint32_t *)b];
	int64_t gx = x->own[1] - x->own[0], gy = y->own[1] - y->own[0];

	if (gx != gy)
		return gx > gy ? -1 : 1;
	return strcmp(strtab_str(&sort_h->names, *(const uint32_t *)a),
		      strtab_str(&sort_h->names, *(const uint32_t *)b));
}

int heap_diff_write(FILE *f, const struct stackset *base, const struct stackset *now,
		    const struct diff_out_opts *o)
{
	struct hdiff h = { STRTAB_INIT, NULL, 0 };
	struct strbuf sb = STRBUF_INIT;
	uint32_t *order, n, shown = 0;

	add_side(&h, base, 0);
	add_side(&h, now, 1);
	n = h.names.n;
	order = xmalloc((n + 1) * sizeof(*order));
	for (uint32_t i = 1; i < n; i++)
		order[i - 1] = i;
	sort_h = &h;
	qsort(order, n ? n - 1 : 0, sizeof(*order), cmp_growth);
	text_put(&sb, o->base_name);
	fprintf(f, "# luabpfprof diff, heap: growth by reference path, most grown first\n"
		"# BASE %s: %llu bytes\n", sb_str(&sb), (unsigned long long)base->total);
	sb_reset(&sb);
	text_put(&sb, o->new_name);
	fprintf(f, "# NEW  %s: %llu bytes (%+lld)\n"
		"# (heap pprof carries no object kinds: growth by kind is --heap -d's)\n"
		"%12s %10s %12s %12s  %s\n", sb_str(&sb), (unsigned long long)now->total,
		(long long)now->total - (long long)base->total, "own bytes", "objects",
		"held BASE", "held NEW", "path");
	for (uint32_t i = 0; i + 1 < n && shown < HEAP_DIFF_ROWS; i++) {
		const struct hpath *p = &h.p[order[i]];

		if (p->own[1] == p->own[0] && p->objects[1] == p->objects[0])
			continue;
		sb_reset(&sb);
		text_put(&sb, strtab_str(&h.names, order[i]));
		fprintf(f, "%+12lld %+10lld %12lld %12lld  %s\n", (long long)(p->own[1] - p->own[0]),
			(long long)(p->objects[1] - p->objects[0]), (long long)p->held[0],
			(long long)p->held[1], sb_str(&sb));
		shown++;
	}
	free(order);
	free(h.p);
	strtab_free(&h.names);
	sb_free(&sb);
	return ferror(f) ? -1 : 0;
}
