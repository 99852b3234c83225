/* SPDX-License-Identifier: MIT */
/* Functions a trace inlined without a snapshot of their own, said: no
 * reader of an unmodified trace can split their time from the frames
 * around them (docs/jit-truth.md), so the views name them instead of
 * hiding them. */
#ifndef LBP_INLINED_NOTES_H
#define LBP_INLINED_NOTES_H

#include <stdbool.h>
#include <stdio.h>

#include "model/profile.h"

/* The index in s->frames of the top Lua frame, the one the trace's time
 * (the inlined functions' with it) is counted in; -1 when none. */
int inlined_frame_of(const struct sample *s);

/* One line per trace whose samples carry inlined functions, heaviest
 * first, each after prefix:
 *   note: trace 3 (spectral-norm.lua:14) inlined spectral-norm.lua:A
 *   without a snapshot: its time is counted in spectral-norm.lua:Av (100%)
 * the frames being those the trace's samples were counted in, with their
 * share of them.  Nothing when no sample carries one. */
void inlined_notes_write(FILE *out, const struct profile *p, const char *prefix);

#endif
