/* SPDX-License-Identifier: MIT */
/* Reference paths written out: the top paths as text, and every path as
 * folded stacks weighted by bytes (flamegraph.pl, speedscope, ...). */
#ifndef LBP_HEAP_PATHS_OUT_H
#define LBP_HEAP_PATHS_OUT_H

#include <stdio.h>

struct heap_paths;

/* The n paths holding the most bytes of their own, with counts and what
 * they hold under them. */
void heap_paths_text(FILE *f, const struct heap_paths *hp, int n);

/* One line per path with objects: "root;.app;.cache;.users;[*] BYTES",
 * under a first frame naming the process (prefix). */
void heap_paths_folded(FILE *f, const struct heap_paths *hp, const char *prefix);

/* The n largest objects, each with its kind and path. */
struct heap_snapshot;
void heap_largest_text(FILE *f, const struct heap_snapshot *snap, const struct heap_paths *hp,
		       int n);

#endif
