/* SPDX-License-Identifier: MIT */
/* What `luabpfprof diff` writes: the text table of a diff_table (each
 * key's shares, change and interval, noise marked), and FlameGraph's
 * difffolded lines ("stack BASE NEW", BASE scaled to NEW's total or
 * duration) that flamegraph.pl draws as a differential flame graph. */
#ifndef LBP_DIFF_OUT_H
#define LBP_DIFF_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "model/diff_keys.h"
#include "model/stackset.h"

struct diff_out_opts {
	double confidence;
	bool per_second;	/* spans are ticks: shares of one CPU */
	const char *base_name, *new_name;
	double min_pct;		/* noise rows below this share are left out */
};

/* 0, or -1 when writing failed. */
int diff_text_write(FILE *f, const struct diff_table *t, const struct stackset *base,
		    const struct stackset *now, const struct diff_out_opts *o);

/* Every stack of either side, root first by 'F' names, with BASE's count
 * scaled by NEW's span over BASE's (rounded) and NEW's own. */
int diff_folded_write(FILE *f, const struct stackset *base, const struct stackset *now,
		      const double span[2]);

/* One side as a gzip'd pprof file (report/diff_pprof.c): with the other
 * side's, the pair `go tool pprof -diff_base` takes. */
int diff_pprof_write(FILE *f, const struct stackset *s);

#endif
