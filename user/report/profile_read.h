/* SPDX-License-Identifier: MIT */
/* Reading profiles back, the inverse of the exporters: a pprof file
 * (gzip'd or not: export_pprof.c, heap_pprof.c, the agent's rolling
 * files) or folded stacks (export_folded.c), into a stackset; a
 * directory is every such file in it, merged.  Files are untrusted:
 * every length is bounded, a bad file is one line in err. */
#ifndef LBP_PROFILE_READ_H
#define LBP_PROFILE_READ_H

#include <stddef.h>
#include <stdint.h>

#include "model/stackset.h"

/* The most a file may hold, compressed or not. */
#define PROFILE_READ_MAX	(256u << 20)

/* Which of a directory's files to take: those whose profile starts in
 * [from_ns, to_ns) (CLOCK_REALTIME); all when to_ns is 0. */
struct read_window {
	uint64_t from_ns, to_ns;
};

/* Reads path (a file or a directory) into s.  0, or -1 with one line. */
int profile_read_path(const char *path, const struct read_window *w, struct stackset *s,
		      char *err, size_t errlen);

/* One file's bytes, as read from name (for messages): gunzipped when
 * gzip'd, then pprof or folded.  1 when the window leaves it out. */
int profile_read_buf(const char *name, const void *data, size_t n, const struct read_window *w,
		     struct stackset *s, char *err, size_t errlen);

/* The formats, on uncompressed bytes (read_pprof.c, read_otlp.c,
 * read_folded.c). */
#define READ_NOT_PPROF	(-2)	/* read_pprof: no pprof at all (err says so) */
int read_pprof(const char *name, const uint8_t *data, size_t n, const struct read_window *w,
	       struct stackset *s, char *err, size_t errlen);
/* OTLP: every Profile of the request (read_otlp.c); 1 when the window
 * left all out. */
int read_otlp(const char *name, const uint8_t *data, size_t n, const struct read_window *w,
	      struct stackset *s, char *err, size_t errlen);
int read_folded(const char *name, const char *data, size_t n, struct stackset *s, char *err,
		size_t errlen);

#endif
