/* SPDX-License-Identifier: MIT */
/* `luabpfprof diff a.heap.pb.gz b.heap.pb.gz`: two heap censuses (heap
 * pprof, report/heap_pprof.c) compared by reference path, the paths
 * whose own bytes grew most first, so that what leaks is the first row.
 * Paths are matched by name, as objects move between walks.  Heap pprof
 * carries no object kinds: growth by kind is `--heap -d`'s. */
#ifndef LBP_HEAP_DIFF_H
#define LBP_HEAP_DIFF_H

#include <stdio.h>

#include "model/stackset.h"
#include "report/diff_out.h"

#define HEAP_DIFF_ROWS	40

int heap_diff_write(FILE *f, const struct stackset *base, const struct stackset *now,
		    const struct diff_out_opts *o);

#endif
