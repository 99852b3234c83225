/* SPDX-License-Identifier: MIT */
/* record, luabpfprof's default command, and top, its live form: a session
 * (user/session/) with a consumer, the one-shot report, the live table or
 * the continuous agent. */
#ifndef LBP_RECORD_CMD_H
#define LBP_RECORD_CMD_H

#include <signal.h>

struct options;

/* Runs until the duration, the targets' exit or *stop; the exit status. */
int record_cmd_run(const struct options *o, volatile sig_atomic_t *stop);

#endif
