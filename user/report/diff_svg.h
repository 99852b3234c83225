/* SPDX-License-Identifier: MIT */
/* The differential flame graph of `luabpfprof diff -o x.svg`: NEW's
 * shape (frames as wide as their NEW samples), each frame coloured by
 * the change of its inclusive share against BASE: red grew, blue
 * shrank, grey inside the noise; the tooltip holds both shares and the
 * change's interval.  The script and style are every flame graph's
 * (svg_script.c): click to zoom, Ctrl-F to search. */
#ifndef LBP_DIFF_SVG_H
#define LBP_DIFF_SVG_H

#include <stdio.h>

#include "model/stackset.h"
#include "report/diff_out.h"

/* The fills: tests read them back. */
#define DIFF_SVG_NOISE_RGB	"rgb(221,221,221)"

/* span: what each side's counts are divided by (its total, or its
 * ticks with --per-second).  0, or -1 when writing failed. */
int diff_svg_write(FILE *f, const struct stackset *base, const struct stackset *now,
		   const double span[2], const struct diff_out_opts *o);

#endif
