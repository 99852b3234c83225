/* SPDX-License-Identifier: MIT */
/* `dump`'s model of one VM, built from a heap walk: every thread object
 * the walk found, read (heap/dump_thread.h), its frames named by the
 * symbolizer as a profile's are, and with locals their short values. */
#ifndef LBP_DUMP_BUILD_H
#define LBP_DUMP_BUILD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "model/dump.h"
#include "heap/heap_walk.h"

struct symbolizer;

struct dump_opts {
	bool locals;		/* each Lua frame's named locals */
	size_t width;		/* strings cut to this many bytes */
	bool with_query;	/* nginx requests: the URI's query too (it may hold tokens) */
	bool sort_age;		/* oldest request first */
	volatile sig_atomic_t *stop;	/* non-zero: stop reading (may be NULL) */
};

/* Adds every thread of snap (walked from the VM at d->g) to d. */
void dump_build(struct symbolizer *sym, const struct heap_snapshot *snap,
		const struct dump_opts *o, struct dump *d);

#endif
