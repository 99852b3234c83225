// SPDX-License-Identifier: MIT
/* Reference paths as text and folded stacks (see heap_paths_out.h). */
#include "report/heap_paths_out.h"

#include <inttypes.h>
#include <stdlib.h>

#include "model/heap_census.h"
#include "model/heap_paths.h"
#include "heap/heap_walk.h"

#define NAME_MAX_TEXT	1024

static const struct heap_paths *sort_hp;

static int by_self_bytes(const void *a, const void *b)
{
	const struct heap_path *x = &sort_hp->p[*(const uint32_t *)a];
	const struct heap_path *y = &sort_hp->p[*(const uint32_t *)b];

	if (x->self_bytes != y->self_bytes)
		return x->self_bytes < y->self_bytes ? 1 : -1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

void heap_paths_text(FILE *f, const struct heap_paths *hp, int n)
{
	uint32_t *order = malloc(hp->n * sizeof(*order));
	char name[NAME_MAX_TEXT], other[NAME_MAX_TEXT];

	if (!order)
		return;
	for (size_t i = 0; i < hp->n; i++)
		order[i] = (uint32_t)i;
	sort_hp = hp;
	qsort(order, hp->n, sizeof(*order), by_self_bytes);
	fprintf(f, "# Top reference paths by bytes (each object counted on one path reaching\n"
		   "# it: globals and package.loaded first, then named locals, then other stack\n"
		   "# slots, the shortest of each; held = with the paths under it; \"also\": how\n"
		   "# many other paths reach the same objects, and the first of them)\n");
	fprintf(f, "%14s %10s %14s  %s\n", "bytes", "objects", "held", "path");
	for (int i = 0; i < n && (size_t)i < hp->n; i++) {
		const struct heap_path *p = &hp->p[order[i]];

		if (!p->self_count)
			break;
		uint32_t others = heap_path_others(hp, order[i], other, sizeof(other));

		heap_path_name(hp, order[i], "", name, sizeof(name));
		fprintf(f, "%14" PRIu64 " %10" PRIu64 " %14" PRIu64 "  %s", p->self_bytes,
			p->self_count, p->held_bytes, name);
		if (others)
			fprintf(f, "  (also %u other path%s: %s)", others, others > 1 ? "s" : "",
				other);
		fputc('\n', f);
	}
	free(order);
}

void heap_paths_folded(FILE *f, const struct heap_paths *hp, const char *prefix)
{
	char name[NAME_MAX_TEXT];

	for (size_t i = 0; i < hp->n; i++) {
		if (!hp->p[i].self_bytes)
			continue;
		heap_path_name(hp, (uint32_t)i, ";", name, sizeof(name));
		fprintf(f, "%s;%s %" PRIu64 "\n", prefix, name, hp->p[i].self_bytes);
	}
}

void heap_largest_text(FILE *f, const struct heap_snapshot *snap, const struct heap_paths *hp,
		       int n)
{
	uint32_t top[32];
	int k = 0;
	char name[NAME_MAX_TEXT];

	if (n > 32)
		n = 32;
	/* Insertion into a short sorted list: one pass over the heap. */
	for (uint32_t i = 0; i < snap->n; i++) {
		uint64_t b = heap_obj_bytes(snap, i);
		int at = k;

		while (at > 0 && heap_obj_bytes(snap, top[at - 1]) < b)
			at--;
		if (at >= n)
			continue;
		if (k < n)
			k++;
		for (int j = k - 1; j > at; j--)
			top[j] = top[j - 1];
		top[at] = i;
	}
	fprintf(f, "# Largest objects\n%14s %-12s  %s\n", "bytes", "kind", "path");
	for (int i = 0; i < k; i++) {
		uint32_t p = hp->obj_path[top[i]];

		heap_path_name(hp, p == HEAP_PATH_NONE ? hp->unreached : p, "", name, sizeof(name));
		fprintf(f, "%14" PRIu64 " %-12s  %s\n", heap_obj_bytes(snap, top[i]),
			heap_kind_name(heap_kind_of(snap, top[i])), name);
	}
}
