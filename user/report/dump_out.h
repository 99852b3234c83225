/* SPDX-License-Identifier: MIT */
/* `dump` written out: text for people (one block per thread, its frames
 * top first, locals indented under their frame) and JSON for scripts. */
#ifndef LBP_DUMP_OUT_H
#define LBP_DUMP_OUT_H

#include <stdio.h>

#include "model/dump.h"

void dump_text(FILE *f, const struct dump *d);

/* One JSON object per dump; the caller puts them in {"vms": [...]}. */
void dump_json(FILE *f, const struct dump *d);

#endif
