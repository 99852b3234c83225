/* SPDX-License-Identifier: MIT */
/* speedscope's shared frame table, built as stacks are exported: each
 * distinct frame (its name, file and line as speedscope shows them) once,
 * by index.  The sampled and evented speedscope files and the Chrome trace
 * name frames by it. */
#ifndef LBP_SPEEDSCOPE_FRAMES_H
#define LBP_SPEEDSCOPE_FRAMES_H

#include <stdint.h>

#include "base/strbuf.h"
#include "report/export.h"

struct ss_frames;

/* NULL when out of memory. */
struct ss_frames *ss_frames_new(void);
void ss_frames_free(struct ss_frames *sf);

/* The exported stack of s (export_stack.h's xstack_build, no process
 * frames), root first, as frame indexes: n of them, valid until the next
 * call.  NULL when out of memory.  o must be normalized. */
const uint32_t *ss_frames_stack(struct ss_frames *sf, const struct profile *p,
				const struct sample *s, const struct export_opts *o, uint32_t *n);

/* Frame i's name, its file ("" when none) and its line (-1 when none). */
const char *ss_frames_name(const struct ss_frames *sf, uint32_t i);
const char *ss_frames_file(const struct ss_frames *sf, uint32_t i);
int ss_frames_line(const struct ss_frames *sf, uint32_t i);

/* A speedscope file up to its first profile: the schema, the name (o's
 * title), the shared frames so far, and "profiles":[ opened. */
void speedscope_head(struct strbuf *sb, const struct export_opts *o, const struct ss_frames *sf);

#endif
