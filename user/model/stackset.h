/* SPDX-License-Identifier: MIT */
/* A profile read back from files luabpfprof wrote (pprof, folded): its
 * stacks, each with a count and the labels the --jp views key on, merged
 * over every file of one side of a diff.  Frames are named in the three
 * scopes of the views ('F', 'f', 'l'), as far as the file tells them. */
#ifndef LBP_STACKSET_H
#define LBP_STACKSET_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "model/strtab.h"

/* Bounds on what a set holds, whatever the files claim. */
#define SS_MAX_FRAMES	(1u << 26)	/* frames over all stacks */
#define SS_MAX_DEPTH	4096		/* frames of one stack */

/* String ids in the set's table; 0 ("") where the file has no such name. */
struct ss_frame {
	uint32_t F, f, l;
};

struct ss_sample {
	size_t at;		/* first frame (the root) in frames[] */
	uint32_t n;
	uint32_t vmstate, zone;	/* string ids, 0: none */
	uint64_t count;		/* samples; bytes in a heap profile */
	uint64_t objects;	/* a heap profile's objects, else 0 */
};

/* What every file of the set carried: a view that needs more is refused. */
enum {
	SS_HAS_LINES = 1,	/* current lines ('l') */
	SS_HAS_VMSTATE = 2,	/* a vmstate label ('v') */
	SS_HAS_ZONE = 4,	/* zone labels ('z') */
	SS_HAS_DURATION = 8,	/* --per-second */
	SS_HEAP = 16,		/* a heap census: bytes and objects by path */
};

struct stackset {
	struct strtab str;
	struct ss_frame *frames;
	size_t nframes, capframes;
	struct ss_sample *samples;
	size_t nsamples, capsamples;
	uint64_t total;		/* sum of the counts */
	/* The samples one busy CPU would give over the files' durations
	 * (duration / period, summed): what --per-second divides by. */
	double ticks;
	uint64_t duration_ns;	/* summed over the files */
	uint64_t start_ns;	/* the earliest file's start, 0 if unknown */
	unsigned files;		/* profiles read: a file each, an OTLP request's each */
	unsigned has;		/* SS_HAS_*, and-ed over the files */
};

void stackset_init(struct stackset *s);
void stackset_free(struct stackset *s);

/* Appends one stack (root first) with values' counts and labels (its at
 * and n are the set's).  -1 when it would pass the bounds. */
int stackset_add(struct stackset *s, const struct ss_frame *frames, uint32_t n,
		 const struct ss_sample *values);

/* One more file read into s, which carried `has`. */
void stackset_file_done(struct stackset *s, unsigned has);

/* The function name of an 'F' name ("app.lua:render" -> "render"): what
 * follows the chunk's "name:" prefix, unless that is a line number (an
 * anonymous function is "app.lua:12" in both scopes). */
void stackset_f_of_F(const char *F, const char **f, size_t *n);

#endif
