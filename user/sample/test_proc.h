/* SPDX-License-Identifier: MIT */
/* For the sample layer's unit tests: a real process that runs no LuaJIT. */
#ifndef LBP_TEST_PROC_H
#define LBP_TEST_PROC_H

/* pipe2: the including file defines _GNU_SOURCE first. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

/* A child running `sleep 60` in cwd (NULL: ours); returns once it has
 * exec'd, so /proc shows sleep and not a copy of the test. */
static inline pid_t test_spawn_sleep(const char *cwd)
{
	int p[2];
	char c;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		if (cwd && chdir(cwd))
			_exit(126);
		execlp("sleep", "sleep", "60", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	/* EOF once the exec closed the write end. */
	while (read(p[0], &c, 1) < 0 && errno == EINTR)
		;
	close(p[0]);
	return pid;
}

#endif
