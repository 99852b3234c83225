/* SPDX-License-Identifier: MIT */
/* The jit.p text report (luajit -jp=MODE) computed from a profile:
 * the same keys, nesting, thresholds and annotations, byte for byte. */
#ifndef LBP_VIEW_JITP_H
#define LBP_VIEW_JITP_H

#include <stdbool.h>
#include <stdio.h>

#include "report/jpmode.h"
#include "model/profile.h"

struct view_jitp_opts {
	/* Opens a source file for the a/A annotations.  path is the chunk
	 * name as LuaJIT stored it (without '@'), maybe relative to the
	 * target's cwd.  Returns NULL with errno set when it cannot.
	 * NULL: fopen(path, "r"). */
	FILE *(*open_source)(const char *path, void *ctx);
	void *ctx;
	bool per_thread;	/* one section per thread (--per-thread) */
	bool per_process;	/* one per process, not per program (--per-process) */
};

/* Writes the report for mode m.  With samples of several processes, one
 * section per process follows a "=== PID n (comm) ===" line.  Returns 0,
 * or -1 when writing to out failed. */
int view_jitp_write(FILE *out, const struct profile *p, const struct jp_mode *m);
int view_jitp_write_opts(FILE *out, const struct profile *p, const struct jp_mode *m,
			 const struct view_jitp_opts *opts);

#endif
