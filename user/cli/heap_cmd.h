/* SPDX-License-Identifier: MIT */
/* --heap: the heap census of each -p process, instead of a CPU profile. */
#ifndef LBP_HEAP_CMD_H
#define LBP_HEAP_CMD_H

#include <signal.h>

struct options;

/* Runs the census and writes the report; returns the exit status.  *stop
 * (set by SIGINT, SIGTERM, SIGHUP) ends a walk at its next read and the
 * wait of -d at once: the growth until then is reported. */
int heap_cmd_run(const struct options *o, volatile sig_atomic_t *stop);

#endif
