/* SPDX-License-Identifier: MIT */
/* Reference paths as an interactive SVG flame graph of bytes: one frame
 * per path element, as wide as the bytes held under it, with the same
 * script (zoom, search) as the CPU flame graphs. */
#ifndef LBP_HEAP_SVG_H
#define LBP_HEAP_SVG_H

#include <stdio.h>

struct heap_paths;

/* title names the heap ("Lua heap of PID 12"); 0, or -1 on a write error. */
int heap_svg_write(FILE *f, const struct heap_paths *hp, const char *title);

#endif
