/* SPDX-License-Identifier: MIT */
/* `luabpfprof dump -p PID`: the stack of every thread and coroutine of
 * each process, read once from its memory (no BPF, never stopped). */
#ifndef LBP_DUMP_CMD_H
#define LBP_DUMP_CMD_H

#include <signal.h>

struct options;

/* Writes the dumps; returns the exit status.  *stop ends a heap walk at
 * its next read: what was found until then is written. */
int dump_cmd_run(const struct options *o, volatile sig_atomic_t *stop);

#endif
