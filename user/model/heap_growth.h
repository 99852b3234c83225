/* SPDX-License-Identifier: MIT */
/* Growth between two censuses of one heap: per kind and per reference
 * path (paths matched by name, as objects move between walks), the leak
 * finder of `--heap -d SECS`. */
#ifndef LBP_HEAP_GROWTH_H
#define LBP_HEAP_GROWTH_H

#include <stddef.h>
#include <stdint.h>

#include "model/heap_census.h"

struct heap_paths;

/* A census reduced to what a later one is compared with. */
struct heap_named {
	char *name;
	uint64_t bytes, count;
};

struct heap_capture {
	struct heap_named *paths;	/* sorted by name */
	size_t n;
	struct heap_census census;
};

struct heap_growth_row {
	const char *name;	/* points into the later capture */
	int64_t dbytes, dcount;
	uint64_t bytes;		/* in the later census */
};

struct heap_growth {
	struct heap_growth_row *rows;	/* most grown first */
	size_t n;
	int64_t kind_dbytes[HK_NKINDS], kind_dcount[HK_NKINDS];
	int64_t dtotal;			/* gc.total's change */
	double secs;
};

/* Keeps the paths' names and own bytes, and the census. */
void heap_capture_take(const struct heap_paths *hp, const struct heap_census *c,
		       struct heap_capture *cap);
void heap_capture_free(struct heap_capture *cap);

/* What changed from a to b over secs; g->rows point into b. */
void heap_growth_diff(const struct heap_capture *a, const struct heap_capture *b, double secs,
		      struct heap_growth *g);
void heap_growth_free(struct heap_growth *g);

#endif
