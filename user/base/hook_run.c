// SPDX-License-Identifier: MIT
/* Running a program of the user's (hook.h) without root's privileges.
 *
 * Three processes: the agent; a reaper forked from it, which stays root
 * only to kill what the program leaves behind; and the program, forked
 * from the reaper, which drops to HOOK_USER with no capabilities, no
 * supplementary groups, no_new_privs and "/" as its directory before it
 * runs.  The reaper is a child subreaper: whatever the program starts,
 * even in a session of its own (setsid), is reparented to it when its
 * parent dies, and killed when the program exits or its time is up.  So
 * the pipe's last writer is gone as soon as the program is: the agent
 * reads its output to the end at once, instead of timing out on a
 * daemonised child that holds the pipe open.
 *
 * Between fork and exec only async-signal-safe calls: the agent has
 * threads. */
#define _GNU_SOURCE
#include "base/hook.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"

#define HOOK_USER	"nobody"
#define NOBODY_ID	65534
#define REAP_MS		2000	/* killing and reaping what the program left */

/* The reaper's exit status: how the program ended. */
enum outcome { OUT_OK, OUT_FAILED, OUT_SIGNALED, OUT_TIMEOUT, OUT_NOPRIV, OUT_NOEXEC };

/* What the program's process sends the reaper when it fails before exec. */
struct pre_exec_error {
	int outcome, err;
};

/* clock_gettime is async-signal-safe. */
static long long now_ms(void)
{
	return (long long)(clock_ns(CLOCK_MONOTONIC) / 1000000);
}

static void nap_ms(long ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
}

__attribute__((noreturn))
static void fail_pre_exec(int fd, int outcome)
{
	struct pre_exec_error e = { outcome, errno };

	if (write(fd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

/* Every capability set empty, as it should be after setresuid. */
static bool no_capabilities(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	/* Dropped explicitly too: SECBIT_NO_SETUID_FIXUP would keep them. */
	if (syscall(SYS_capset, &h, d) || syscall(SYS_capget, &h, d))
		return false;
	return !(d[0].effective | d[0].permitted | d[0].inheritable |
		 d[1].effective | d[1].permitted | d[1].inheritable);
}

/* In the program's process: fixed descriptors, signals as the default,
 * HOOK_USER without privileges, then the program.  Never returns. */
__attribute__((noreturn))
static void become_program(const char *path, char *const argv[], int out_fd, int err_fd,
			   uid_t uid, gid_t gid)
{
	static char *const envp[] = { "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
				      NULL };
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t none;
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	setpgid(0, 0);
	for (int sig = 1; sig < NSIG; sig++)
		sigaction(sig, &dfl, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (null < 0 || dup2(null, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(null, 2) < 0)
		fail_pre_exec(err_fd, OUT_NOEXEC);
	if (chdir("/") || setgroups(0, NULL) || setresgid(gid, gid, gid) ||
	    setresuid(uid, uid, uid) || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) || !no_capabilities())
		fail_pre_exec(err_fd, OUT_NOPRIV);
	/* Only 0, 1, 2 and err_fd (close-on-exec) are left open. */
	for (int fd = 3; fd < 1024; fd++)
		if (fd != err_fd)
			close(fd);
	execve(path, argv, envp);
	fail_pre_exec(err_fd, OUT_NOEXEC);
}

/* Kills and reaps every child the reaper has: the program's orphans. */
static void reap_all(void)
{
	long long end = now_ms() + REAP_MS;
	char buf[4096];

	for (;;) {
		int fd = open("/proc/thread-self/children", O_RDONLY | O_CLOEXEC);
		ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
		pid_t w;

		if (fd >= 0)
			close(fd);
		/* Our unreaped children: their pids cannot be reused. */
		for (ssize_t i = 0; i < n; ) {
			pid_t pid = 0;

			while (i < n && (buf[i] < '0' || buf[i] > '9'))
				i++;
			while (i < n && buf[i] >= '0' && buf[i] <= '9')
				pid = pid * 10 + (buf[i++] - '0');
			if (pid > 0)
				kill(pid, SIGKILL);
		}
		while ((w = waitpid(-1, NULL, WNOHANG)) > 0)
			;
		if ((w < 0 && errno == ECHILD) || now_ms() > end)
			return;
		nap_ms(2);
	}
}

/* The reaper: runs the program, waits for it at most timeout_ms, then
 * kills what is left.  Exits with the outcome. */
__attribute__((noreturn))
static void reaper(const char *path, char *const argv[], int out_fd, uid_t uid, gid_t gid,
		   int timeout_ms)
{
	struct pre_exec_error e = { OUT_OK, 0 };
	long long deadline = now_ms() + timeout_ms;
	int ep[2], status = 0, outcome = OUT_OK;
	pid_t prog, w;

	struct sigaction dfl = { .sa_handler = SIG_DFL };

	sigaction(SIGCHLD, &dfl, NULL);	/* waitpid must see the program */
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) || pipe2(ep, O_CLOEXEC))
		_exit(OUT_NOEXEC);
	prog = fork();
	if (prog < 0)
		_exit(OUT_NOEXEC);
	if (prog == 0) {
		close(ep[0]);
		become_program(path, argv, out_fd, ep[1], uid, gid);
	}
	close(ep[1]);
	close(out_fd);
	while ((w = waitpid(prog, &status, WNOHANG)) == 0 && now_ms() < deadline)
		nap_ms(5);
	if (w == 0) {
		kill(-prog, SIGKILL);
		kill(prog, SIGKILL);
		waitpid(prog, &status, 0);
		outcome = OUT_TIMEOUT;
	} else if (read(ep[0], &e, sizeof(e)) == (ssize_t)sizeof(e)) {
		outcome = e.outcome;
	} else if (!WIFEXITED(status)) {
		outcome = OUT_SIGNALED;
	} else if (WEXITSTATUS(status)) {
		outcome = OUT_FAILED;
	}
	kill(-prog, SIGKILL);	/* its group, then whatever escaped it */
	reap_all();
	_exit(outcome);
}

/* Reads the program's stdout until EOF, the deadline or the cap. */
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

static void hook_user(uid_t *uid, gid_t *gid)
{
	struct passwd pw, *res = NULL;
	char buf[1024];

	*uid = NOBODY_ID;
	*gid = NOBODY_ID;
	if (!getpwnam_r(HOOK_USER, &pw, buf, sizeof(buf), &res) && res && res->pw_uid) {
		*uid = res->pw_uid;
		*gid = res->pw_gid;
	}
}

static const char *outcome_text(int outcome)
{
	switch (outcome) {
	case OUT_FAILED: return "exited non-zero";
	case OUT_SIGNALED: return "killed by a signal";
	case OUT_TIMEOUT: return "timed out";
	case OUT_NOPRIV: return "cannot drop to user " HOOK_USER
				" without capabilities (the agent needs CAP_SETUID and CAP_SETGID for it)";
	default: return "cannot be run as user " HOOK_USER " (it must be executable by it)";
	}
}

int hook_run(const char *path, char *const argv[], int timeout_ms, char *out, size_t outlen,
	     char *err, size_t errlen)
{
	int pfd[2], status = 0;
	const char *why;
	long long end;
	uid_t uid;
	gid_t gid;
	pid_t pid;

	hook_user(&uid, &gid);
	if (pipe2(pfd, O_CLOEXEC)) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		reaper(path, argv, pfd[1], uid, gid, timeout_ms);
	}
	close(pfd[1]);
	if (pid < 0) {
		close(pfd[0]);
		snprintf(err, errlen, "cannot run %s: %s", path, strerror(errno));
		return -1;
	}
	/* EOF comes when the program and all it started are gone: the
	 * reaper sees to that within its deadline. */
	why = collect(pfd[0], now_ms() + timeout_ms + REAP_MS, out, outlen);
	close(pfd[0]);	/* a program still writing gets EPIPE */
	end = now_ms() + REAP_MS;
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (now_ms() > end) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			break;
		}
		nap_ms(5);
	}
	if (!why && WIFEXITED(status) && WEXITSTATUS(status) != OUT_OK)
		why = outcome_text(WEXITSTATUS(status));
	else if (!why && !WIFEXITED(status))
		why = "timed out";
	if (why) {
		snprintf(err, errlen, "%s: %s", path, why);
		return -1;
	}
	return 0;
}
