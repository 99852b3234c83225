/* SPDX-License-Identifier: MIT */
/* `luabpfprof diff BASE NEW`: two profiles read back from files (or two
 * windows of a --continuous directory) and compared key by key, as text,
 * a differential flame graph or difffolded lines; --fail-if gates on the
 * changes.  Reads files only: no BPF, no target. */
#ifndef LBP_DIFF_CMD_H
#define LBP_DIFF_CMD_H

#include <signal.h>

#include <signal.h>

struct options;

/* Exit status when a --fail-if rule is broken. */
#define DIFF_EXIT_GATE	3

/* Returns the exit status: 0, 1 (a file could not be read or written),
 * DIFF_EXIT_GATE. */
int diff_cmd_run(const struct options *o, volatile sig_atomic_t *stop);

#endif
