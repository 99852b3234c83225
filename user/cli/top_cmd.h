/* SPDX-License-Identifier: MIT */
/* luabpfprof top: the session's consumer that draws a live table of the
 * Lua functions (report/top_table.h) on the terminal (cli/top_screen.h)
 * every --delay, and takes keys between updates. */
#ifndef LBP_TOP_CMD_H
#define LBP_TOP_CMD_H

#include <signal.h>

struct options;
struct session;

/* Whether top can draw here (stdin and stdout a terminal): 0, or -1 with
 * one line logged.  Checked before anything is loaded or launched. */
int top_cmd_check_terminal(void);

/* In a command top launches, before exec: stdin, stdout and stderr to
 * /dev/null, since the screen and the keys need the terminal.  0, or -1. */
int top_cmd_child_stdio(void);

/* Runs s, opened with every_s = o->top_delay, until q, a stop signal
 * (*stop), -d or the targets' exit, with the terminal restored on every
 * one of them.  Returns the exit status: 0, or 1 when the terminal
 * could not be used. */
int top_cmd_run(const struct options *o, struct session *s, volatile sig_atomic_t *stop);

#endif
