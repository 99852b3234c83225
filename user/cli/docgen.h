/* SPDX-License-Identifier: MIT */
/* The man page and the shell completions, generated from the option table
 * at build time ($(OUT)/docgen, not part of luabpfprof), so that -h,
 * luabpfprof(1) and <TAB> list the same options and values.  Each returns
 * 0, or -1 with one line logged when the table has something the page
 * cannot describe (a new -e event without its paragraph). */
#ifndef LBP_DOCGEN_H
#define LBP_DOCGEN_H

#include <stdio.h>

int docgen_man(FILE *f);
int docgen_bash(FILE *f);
int docgen_zsh(FILE *f);

/* The row of long option name, or NULL. */
const struct opt_row *docgen_row(const char *name);

#endif
