// SPDX-License-Identifier: MIT
/* Checked directories, never-followed names, files that appear whole. */
#define _GNU_SOURCE
#include "base/safefile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TMP_PREFIX	".luabpfprof."

/* ------------------------------------------------------------------------ */
/* Directories								    */
/* ------------------------------------------------------------------------ */

int safe_dir_open(const char *path, const char *what, mode_t create_mode, char *err,
		  size_t errlen)
{
	char *clean = strdup(path);
	struct stat st;
	size_t n;
	int fd = -1;

	if (!clean) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* "link/" would resolve the link: O_NOFOLLOW sees the last name only. */
	n = strlen(clean);
	while (n > 1 && clean[n - 1] == '/')
		clean[--n] = '\0';
	if (create_mode && mkdir(clean, create_mode) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s %s: %s", what, path, strerror(errno));
		goto out;
	}
	fd = open(clean, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (!lstat(clean, &st) && S_ISLNK(st.st_mode))
			snprintf(err, errlen, "%s %s is a symbolic link: give the real directory",
				 what, path);
		else
			snprintf(err, errlen, "cannot open %s %s: %s", what, path, strerror(errno));
		goto out;
	}
	if (fstat(fd, &st)) {
		snprintf(err, errlen, "cannot open %s %s: %s", what, path, strerror(errno));
	} else if (st.st_uid != geteuid()) {
		snprintf(err, errlen, "%s %s is owned by uid %u, not %s: refusing to use it", what,
			 path, (unsigned)st.st_uid, geteuid() ? "this user" : "root");
	} else if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(err, errlen, "%s %s is writable by group or others (mode %04o): refusing to use it",
			 what, path, (unsigned)(st.st_mode & 07777));
	} else {
		goto out;
	}
	close(fd);
	fd = -1;
out:
	free(clean);
	return fd;
}

/* ------------------------------------------------------------------------ */
/* Named temporaries: ".luabpfprof.PID-START.RANDOM"			    */
/* ------------------------------------------------------------------------ */

/* Field 22 of /proc/PID/stat: the start time in clock ticks since boot;
 * with the PID it names one process for the life of the system. */
static unsigned long long proc_start(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long start = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');	/* comm may hold spaces and parentheses */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
			 &start) != 1)
		return 0;
	return start;
}

static void tmp_name(char *buf, size_t len)
{
	static unsigned long long self_start;
	static unsigned counter;
	struct timespec t;

	if (!self_start)
		self_start = proc_start(getpid());
	clock_gettime(CLOCK_MONOTONIC, &t);
	snprintf(buf, len, TMP_PREFIX "%d-%llu.%x%lx", (int)getpid(), self_start, ++counter,
		 (unsigned long)t.tv_nsec);
}

/* Whether name is a temporary of a process that is gone. */
static bool tmp_is_stale(const char *name)
{
	unsigned long long start;
	int pid, used = 0;

	if (strncmp(name, TMP_PREFIX, strlen(TMP_PREFIX)))
		return false;
	/* start 0: /proc was unreadable when it was made; keep it. */
	if (sscanf(name + strlen(TMP_PREFIX), "%d-%llu.%n", &pid, &start, &used) != 2 || !used ||
	    pid <= 0 || !start)
		return false;
	return proc_start(pid) != start;
}

void safe_dir_clean(int dirfd)
{
	int fd = dup(dirfd);
	struct dirent *de;
	DIR *d;

	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	rewinddir(d);
	while ((de = readdir(d))) {
		struct stat st;

		if (!tmp_is_stale(de->d_name) ||
		    fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(st.st_mode) || st.st_uid != geteuid())
			continue;
		unlinkat(dirfd, de->d_name, 0);
	}
	closedir(d);
}

/* ------------------------------------------------------------------------ */
/* Files that appear whole						    */
/* ------------------------------------------------------------------------ */

struct safe_file {
	int dirfd, fd;
	char *name;
	char tmp[96];		/* named temporary; "" with O_TMPFILE */
};

struct safe_file *safe_file_create(int dirfd, const char *name, mode_t mode, char *err,
				   size_t errlen)
{
	struct safe_file *f = calloc(1, sizeof(*f));

	if (!f || !(f->name = strdup(name))) {
		free(f);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	f->dirfd = dirfd;
	f->fd = openat(dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	if (f->fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
		for (int tries = 0; f->fd < 0 && tries < 100; tries++) {
			tmp_name(f->tmp, sizeof(f->tmp));
			f->fd = openat(dirfd, f->tmp,
				       O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
			if (f->fd < 0 && errno != EEXIST)
				break;
		}
	}
	if (f->fd < 0 || fchmod(f->fd, mode)) {
		snprintf(err, errlen, "cannot write %s: %s", name, strerror(errno));
		safe_file_abort(f);
		return NULL;
	}
	return f;
}

int safe_file_fd(const struct safe_file *f)
{
	return f->fd;
}

static void safe_file_free(struct safe_file *f)
{
	int saved = errno;

	if (f->fd >= 0)
		close(f->fd);
	if (f->tmp[0])
		unlinkat(f->dirfd, f->tmp, 0);
	free(f->name);
	free(f);
	errno = saved;
}

void safe_file_abort(struct safe_file *f)
{
	if (f)
		safe_file_free(f);
}

/* Gives the nameless file the name to: AT_EMPTY_PATH needs
 * CAP_DAC_READ_SEARCH, the /proc link does not. */
static int link_tmpfile(struct safe_file *f, const char *to)
{
	char proc[64];

	if (!linkat(f->fd, "", f->dirfd, to, AT_EMPTY_PATH))
		return 0;
	if (errno != EPERM && errno != ENOENT)
		return -1;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", f->fd);
	return linkat(AT_FDCWD, proc, f->dirfd, to, AT_SYMLINK_FOLLOW);
}

int safe_file_commit(struct safe_file *f, bool replace)
{
	int rc = -1;

	if (fsync(f->fd))
		goto out;
	if (!f->tmp[0]) {
		/* linkat never replaces: without replace that is the
		 * no-overwrite guarantee, with it go through a temporary. */
		if (!replace) {
			rc = link_tmpfile(f, f->name);
			goto out;
		}
		tmp_name(f->tmp, sizeof(f->tmp));
		if (link_tmpfile(f, f->tmp)) {
			f->tmp[0] = '\0';
			goto out;
		}
	}
	if (replace)
		rc = renameat(f->dirfd, f->tmp, f->dirfd, f->name);
	else
		rc = linkat(f->dirfd, f->tmp, f->dirfd, f->name, 0);
	if (!rc && replace)
		f->tmp[0] = '\0';
out:
	if (close(f->fd) && !rc)
		rc = -1;
	f->fd = -1;
	safe_file_free(f);
	return rc;
}

int safe_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0) {
			errno = EIO;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int safe_write_file(int dirfd, const char *name, const void *data, size_t len, mode_t mode,
		    bool replace)
{
	char err[8];
	struct safe_file *f = safe_file_create(dirfd, name, mode, err, sizeof(err));

	if (!f)
		return -1;
	if (safe_write_all(f->fd, data, len)) {
		safe_file_abort(f);
		return -1;
	}
	return safe_file_commit(f, replace);
}

int safe_open_append(int dirfd, const char *name, mode_t mode)
{
	struct stat st;
	int fd;

	/* A FIFO without a reader would answer ENXIO: say what it is. */
	if (!fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) && !S_ISREG(st.st_mode)) {
		errno = S_ISLNK(st.st_mode) ? ELOOP : EINVAL;
		return -1;
	}
	fd = openat(dirfd, name,
		    O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
		    mode);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	fcntl(fd, F_SETFL, O_WRONLY | O_APPEND);
	return fd;
}
