/* Running a program of the user's (hook.h). */
#define _GNU_SOURCE
#include "base/hook.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Owned by root or by us, writable by no one else. */
static bool ours(const struct stat *st)
{
	return (st->st_uid == 0 || st->st_uid == geteuid()) && !(st->st_mode & 022);
}

int hook_check(const char *path, char *err, size_t errlen)
{
	char dir[4096];
	struct stat st;
	char *slash;

	if (path[0] != '/') {
		snprintf(err, errlen, "--label-from %s: give an absolute path", path);
		return -1;
	}
	if (lstat(path, &st) || !S_ISREG(st.st_mode) || !(st.st_mode & 0111)) {
		snprintf(err, errlen, "--label-from %s: not an executable regular file (symlinks are not followed)",
			 path);
		return -1;
	}
	if (!ours(&st)) {
		snprintf(err, errlen, "--label-from %s: must be owned by root and writable by no one else", path);
		return -1;
	}
	snprintf(dir, sizeof(dir), "%s", path);
	while ((slash = strrchr(dir, '/'))) {
		slash[slash == dir] = '\0';	/* "/x" leaves "/" */
		if (lstat(dir, &st) || !S_ISDIR(st.st_mode) || !ours(&st)) {
			snprintf(err, errlen, "--label-from %s: directory %s must be root's and writable by no one else",
				 path, dir);
			return -1;
		}
		if (slash == dir)
			break;
	}
	return 0;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Reads the child's stdout until EOF, the deadline or the cap. */
static const char *collect(int fd, long long deadline, char *out, size_t outlen)
{
	size_t n = 0;

	for (;;) {
		long long left = deadline - now_ms();
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t r;

		if (left <= 0)
			return "timed out";
		if (poll(&p, 1, (int)left) < 0 && errno != EINTR)
			return strerror(errno);
		if (!p.revents)
			continue;
		r = read(fd, out + n, outlen - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
		if (n == outlen - 1) {
			char probe;

			out[n] = '\0';
			/* exactly full is fine if nothing follows */
			if (read(fd, &probe, 1) > 0)
				return "too much output";
		}
	}
	out[n] = '\0';
	return NULL;
}

int hook_run(const char *path, char *const argv[], int timeout_ms, char *out, size_t outlen,
	     char *err, size_t errlen)
{
	static char *const envp[] = { "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
				      NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, dfl;
	int pfd[2], status = 0, rc;
	const char *why;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC)) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	posix_spawnattr_init(&at);
	sigemptyset(&none);
	sigfillset(&dfl);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &dfl);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
				 POSIX_SPAWN_SETPGROUP);
	rc = posix_spawn(&pid, path, &fa, &at, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(pfd[1]);
	if (rc) {
		close(pfd[0]);
		snprintf(err, errlen, "cannot run %s: %s", path, strerror(rc));
		return -1;
	}
	why = collect(pfd[0], now_ms() + timeout_ms, out, outlen);
	close(pfd[0]);
	if (why)
		kill(-pid, SIGKILL);	/* the group: what it started too */
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!why && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		why = WIFSIGNALED(status) ? "killed by a signal" : "exited non-zero";
	if (why) {
		snprintf(err, errlen, "%s: %s", path, why);
		return -1;
	}
	return 0;
}
