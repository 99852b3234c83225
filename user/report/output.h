/* The report's destination.  A file is written to a fresh temporary in
 * the same directory and renamed into place at the end: the path is never
 * followed if it is a symlink (another user's, say), a failed run leaves
 * nothing half-written, and an unwritable place is reported before
 * profiling starts. */
#ifndef LBP_OUTPUT_H
#define LBP_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

struct output {
	FILE *f;
	const char *path;	/* NULL for stdout */
	char *tmp;
};

int output_open(struct output *o, const char *path, char *err, size_t errlen);

/* Flushes and renames into place; -1 with a one-line reason (disk full,
 * closed pipe ...). */
int output_commit(struct output *o, char *err, size_t errlen);

/* Drops a temporary file after a failure. */
void output_abort(struct output *o);

#endif
