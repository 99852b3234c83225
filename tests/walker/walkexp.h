/* SPDX-License-Identifier: MIT */
/* What a walk gave, as text: the expected list beside each snapshot
 * (NAME.expect) and what the test compares it with.  One line each:
 *   vmstate N              the sample key's
 *   keyflags 0xN           SAMPLE_*
 *   stack 0xFLAGS NOWN NTHREADS
 *   path NAME=N...         the counters it moved (bpf/sampler.h), samples aside
 *   frame 0xID 0xPC_OFF 0xFP     top first
 * In the file, '#' starts a comment (the frames' names when recorded), and
 * "arch x86 arm64" lists the builds of the walker that must give it. */
#ifndef LBP_WALKEXP_H
#define LBP_WALKEXP_H

#include <stdbool.h>
#include <stddef.h>

#include "walker.h"

struct walkexp {
	char *text;		/* the lines above, comments dropped */
	bool x86, arm64;
};

/* The canonical text of a walk (malloc'd). */
char *walkexp_render(const struct walker_out *out);

/* 0, or -1 when path cannot be read or names no architecture. */
int walkexp_load(const char *path, struct walkexp *e);

#endif
