// SPDX-License-Identifier: MIT
/* -- COMMAND: fork, hold at a pipe, release once the session samples the
 * child, and end it with the run. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "cli/launch.h"
#include "cli/top_cmd.h"
#include "session/session.h"

#define COMMAND_GRACE_NS	3000000000ull	/* SIGTERM to SIGKILL */

/* A command held at a pipe until the parent is ready to sample it; a
 * second, close-on-exec pipe carries errno back if exec fails. */
/* quiet: the command's stdio is /dev/null (top owns the terminal). */
static int launch(char **command, bool quiet, struct launched *l)
{
	int go[2], err[2] = { -1, -1 };
	pid_t parent = getpid();

	if (pipe2(go, O_CLOEXEC))
		return -1;
	if (pipe2(err, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		return -1;
	}
	l->pid = fork();
	if (l->pid == 0) {
		char c;
		int e;

		close(go[1]);
		close(err[0]);
		/* Killed with luabpfprof, even by SIGKILL: never orphaned.
		 * A parent gone before prctl took effect is seen by getppid. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
			_exit(127);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		signal(SIGPIPE, SIG_DFL);
		if (quiet && top_cmd_child_stdio())
			_exit(127);
		execvp(command[0], command);
		e = errno;
		if (write(err[1], &e, sizeof(e)) != sizeof(e))
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(err[1]);
	if (l->pid < 0) {
		close(go[1]);
		close(err[0]);
		return -1;
	}
	l->go_fd = go[1];
	l->err_fd = err[0];
	return 0;
}

/* Releases the command; returns 0 once it runs, else its exec errno. */
static int release(struct launched *l)
{
	int e = 0;
	ssize_t n;

	if (write(l->go_fd, "g", 1) != 1)
		e = EPIPE;
	close(l->go_fd);
	l->go_fd = -1;
	n = read(l->err_fd, &e, sizeof(e));
	close(l->err_fd);
	l->err_fd = -1;
	return n == sizeof(e) ? e : 0;
}

/* Ends the command if it still runs: SIGTERM, then SIGKILL after a grace
 * period for one that ignores it.  Returns its wait status when it ended
 * by itself (to pass on), else -1. */
int launch_end(struct launched *l, struct session *s)
{
	int status = s ? session_child_status(s) : -1;
	uint64_t deadline;

	if (l->go_fd >= 0)
		close(l->go_fd);
	if (l->err_fd >= 0)
		close(l->err_fd);
	l->go_fd = l->err_fd = -1;
	if (l->pid <= 0 || status >= 0)
		return status;
	if (waitpid(l->pid, &status, WNOHANG) == l->pid)
		return status;
	kill(l->pid, SIGTERM);
	deadline = clock_ns(CLOCK_MONOTONIC) + COMMAND_GRACE_NS;
	while (clock_ns(CLOCK_MONOTONIC) < deadline) {
		struct timespec ts = { 0, 20000000 };

		if (waitpid(l->pid, &status, WNOHANG) == l->pid)
			return -1;
		nanosleep(&ts, NULL);
	}
	log_warn("PID %d ignored SIGTERM for %llu s: killed", (int)l->pid,
		 COMMAND_GRACE_NS / 1000000000ull);
	kill(l->pid, SIGKILL);
	waitpid(l->pid, NULL, 0);
	return -1;
}

/* The exit status a run with -- COMMAND ends with: the command's own. */
int launch_exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 0;
}

/* Launches -- COMMAND as a target, released once its samples count.
 * Returns 0, or the exit status to end with. */
int launch_start(struct session *s, char **command, bool quiet, struct launched *cmd)
{
	char err[256];
	int e;

	if (launch(command, quiet, cmd) || session_add_command(s, cmd->pid, err, sizeof(err))) {
		log_error("cannot launch %s: %s", command[0], cmd->pid < 0 ? strerror(errno) : err);
		return 1;
	}
	e = release(cmd);
	if (e) {
		log_error("cannot run %s: %s", command[0], strerror(e));
		return 127;
	}
	session_command_started(s);
	return 0;
}

