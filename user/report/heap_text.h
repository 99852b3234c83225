/* SPDX-License-Identifier: MIT */
/* The heap census as text: one line per kind with count and bytes, the
 * total next to the VM's gc.total and the inconsistencies met. */
#ifndef LBP_HEAP_TEXT_H
#define LBP_HEAP_TEXT_H

#include <stdio.h>
#include <sys/types.h>

struct heap_census;
struct heap_walk_stats;

void heap_text_census(FILE *f, pid_t pid, const char *runtime, const struct heap_census *c,
		      const struct heap_walk_stats *st);

/* What grew between two censuses: per kind, then the n paths that grew
 * most, with their rate over the interval. */
struct heap_growth;
void heap_text_growth(FILE *f, const struct heap_growth *g, int n);

#endif
