/* SPDX-License-Identifier: MIT */
/* The report's destination.  A file is written nameless in its directory
 * (base/safefile.h) and linked into place at the end: the path is never
 * followed if it is a symlink (another user's, say), a failed or killed
 * run leaves nothing behind, an existing file keeps its mode, and an
 * unwritable place is reported before profiling starts. */
#ifndef LBP_OUTPUT_H
#define LBP_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

struct output {
	FILE *f;
	const char *path;	/* NULL for stdout */
	struct safe_file *sf;	/* NULL for stdout, a device or a FIFO */
	int dirfd;		/* the file's directory, while sf is open */
};

int output_open(struct output *o, const char *path, char *err, size_t errlen);

/* Flushes and links into place; -1 with a one-line reason (disk full,
 * closed pipe ...). */
int output_commit(struct output *o, char *err, size_t errlen);

/* Drops the unwritten file after a failure. */
void output_abort(struct output *o);

#endif
