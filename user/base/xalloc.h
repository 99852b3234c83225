/* SPDX-License-Identifier: MIT */
/* Allocation that never returns NULL: a profiler that cannot allocate a few
 * bytes has nothing sensible left to do, so it says so and aborts. */
#ifndef LBP_XALLOC_H
#define LBP_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);

#endif
