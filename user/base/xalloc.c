// SPDX-License-Identifier: MIT
/* Aborting allocators. */
#include "base/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *checked(void *p)
{
	if (!p) {
		fputs("luabpfprof: out of memory\n", stderr);
		abort();
	}
	return p;
}

void *xmalloc(size_t size)
{
	return checked(malloc(size ? size : 1));
}

void *xcalloc(size_t n, size_t size)
{
	return checked(calloc(n ? n : 1, size ? size : 1));
}

void *xrealloc(void *p, size_t size)
{
	return checked(realloc(p, size ? size : 1));
}

char *xstrdup(const char *s)
{
	return checked(strdup(s));
}
