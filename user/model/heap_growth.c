// SPDX-License-Identifier: MIT
/* Growth between two heap censuses (see heap_growth.h). */
#include "model/heap_growth.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "model/heap_paths.h"

#define NAME_MAX_LEN	1024

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct heap_named *)a)->name, ((const struct heap_named *)b)->name);
}

void heap_capture_take(const struct heap_paths *hp, const struct heap_census *c,
		       struct heap_capture *cap)
{
	char name[NAME_MAX_LEN];
	size_t w = 0;

	memset(cap, 0, sizeof(*cap));
	cap->census = *c;
	cap->paths = xcalloc(hp->n + 1, sizeof(*cap->paths));
	for (size_t i = 0; i < hp->n; i++) {
		if (!hp->p[i].self_count)
			continue;
		heap_path_name(hp, (uint32_t)i, "", name, sizeof(name));
		cap->paths[cap->n++] = (struct heap_named){ xstrdup(name), hp->p[i].self_bytes,
							     hp->p[i].self_count };
	}
	/* Two paths may print alike (a key "a.b" and a.b): merge them. */
	qsort(cap->paths, cap->n, sizeof(*cap->paths), by_name);
	for (size_t i = 0; i < cap->n; i++) {
		if (w && !strcmp(cap->paths[i].name, cap->paths[w - 1].name)) {
			cap->paths[w - 1].bytes += cap->paths[i].bytes;
			cap->paths[w - 1].count += cap->paths[i].count;
			free(cap->paths[i].name);
		} else {
			cap->paths[w++] = cap->paths[i];
		}
	}
	cap->n = w;
}

void heap_capture_free(struct heap_capture *cap)
{
	for (size_t i = 0; i < cap->n; i++)
		free(cap->paths[i].name);
	free(cap->paths);
	memset(cap, 0, sizeof(*cap));
}

static int by_growth(const void *a, const void *b)
{
	const struct heap_growth_row *x = a, *y = b;

	if (x->dbytes != y->dbytes)
		return x->dbytes < y->dbytes ? 1 : -1;
	return strcmp(x->name, y->name);
}

void heap_growth_diff(const struct heap_capture *a, const struct heap_capture *b, double secs,
		      struct heap_growth *g)
{
	size_t i = 0, j = 0;

	memset(g, 0, sizeof(*g));
	g->secs = secs;
	g->rows = xcalloc(b->n + 1, sizeof(*g->rows));
	for (int k = 0; k < HK_NKINDS; k++) {
		g->kind_dbytes[k] = (int64_t)(b->census.kind[k].bytes - a->census.kind[k].bytes);
		g->kind_dcount[k] = (int64_t)(b->census.kind[k].count - a->census.kind[k].count);
	}
	g->dtotal = (int64_t)(b->census.gc_total - a->census.gc_total);
	/* A merge of the two sorted lists; paths that vanished are not growth. */
	while (j < b->n) {
		int cmp = i < a->n ? strcmp(a->paths[i].name, b->paths[j].name) : 1;

		if (cmp < 0) {
			i++;
			continue;
		}
		g->rows[g->n] = (struct heap_growth_row){
			b->paths[j].name, (int64_t)b->paths[j].bytes, (int64_t)b->paths[j].count,
			b->paths[j].bytes };
		if (cmp == 0) {
			g->rows[g->n].dbytes -= (int64_t)a->paths[i].bytes;
			g->rows[g->n].dcount -= (int64_t)a->paths[i].count;
			i++;
		}
		g->n++;
		j++;
	}
	qsort(g->rows, g->n, sizeof(*g->rows), by_growth);
}

void heap_growth_free(struct heap_growth *g)
{
	free(g->rows);
	memset(g, 0, sizeof(*g));
}
