/* SPDX-License-Identifier: MIT */
#ifndef LBP_CLI_LAUNCH_H
#define LBP_CLI_LAUNCH_H
/* -- COMMAND: the program luabpfprof starts, holds until its samples
 * count, and ends with the run. */
#include <sys/types.h>
#include <stdbool.h>

struct session;

/* A command held at a pipe until the parent is ready to sample it; a
 * second, close-on-exec pipe carries errno back if exec fails. */
struct launched {
	pid_t pid;
	int go_fd;
	int err_fd;
};
#define LAUNCHED_NONE { -1, -1, -1 }

/* Launches COMMAND as a target of S, released once its samples count.
 * quiet: its stdio is /dev/null (top owns the terminal).  Returns 0, or
 * the exit status to end with. */
int launch_start(struct session *s, char **command, bool quiet, struct launched *cmd);
/* Closes what is left of the start-up pipes, ends the command if it
 * still runs (SIGTERM, then SIGKILL after a grace period).  Returns its
 * wait status when it ended by itself (to pass on), else -1. */
int launch_end(struct launched *l, struct session *s);
/* The exit status a run with -- COMMAND ends with: the command's own. */
int launch_exit_code(int status);
#endif
