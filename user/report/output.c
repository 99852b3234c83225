// SPDX-License-Identifier: MIT
/* Report files: written nameless, linked into place whole (base/safefile.h). */
#define _GNU_SOURCE
#include "report/output.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/safefile.h"

/* Every report is written through a sink: stdio keeps no errno and the
 * exporters turn a failed write into EIO, so the sink remembers the write's
 * own error (ENOSPC, EPIPE ...) for output_commit to report.  One report
 * per process: the open sink is kept here. */
struct sink {
	int fd;
	int err;	/* errno of the first failed write, 0 if none */
	bool own;	/* the stream closes fd */
};

static struct sink *open_sink;

static ssize_t sink_write(void *cookie, const char *buf, size_t n)
{
	struct sink *s = cookie;

	if (safe_write_all(s->fd, buf, n)) {
		if (!s->err)
			s->err = errno;
		errno = s->err;
		return -1;
	}
	return (ssize_t)n;
}

static int sink_close(void *cookie)
{
	struct sink *s = cookie;
	int rc = s->own ? close(s->fd) : 0;

	if (open_sink == s)
		open_sink = NULL;
	free(s);
	return rc;
}

static FILE *sink_open(int fd, bool own)
{
	static const cookie_io_functions_t io = { .write = sink_write, .close = sink_close };
	struct sink *s = calloc(1, sizeof(*s));
	FILE *f;

	if (!s)
		return NULL;
	s->fd = fd;
	s->own = own;
	f = fopencookie(s, "w", io);
	if (!f) {
		free(s);
		return NULL;
	}
	open_sink = s;
	return f;
}

/* The error of the failed write, else fallback (else EIO). */
static int write_error(int fallback)
{
	if (open_sink && open_sink->err)
		return open_sink->err;
	return fallback ? fallback : EIO;
}

/* Whether path names something a rename must not replace: a device, FIFO
 * or socket (/dev/null, a named pipe), directly or through a symlink of
 * our own or root's (/dev/stdout).  Another user's symlink is never
 * followed: it is replaced like a file. */
static bool write_in_place(const char *path)
{
	struct stat lsb, sb;

	if (lstat(path, &lsb))
		return false;
	if (S_ISLNK(lsb.st_mode)) {
		if (lsb.st_uid != geteuid() && lsb.st_uid != 0)
			return false;
		if (stat(path, &sb))
			return false;
		return !S_ISREG(sb.st_mode);
	}
	return !S_ISREG(lsb.st_mode);
}

/* Why an opened device, FIFO or socket must not be written, or NULL.  A
 * FIFO or socket another user made would hand them the report (--locals
 * values included) or block root until they read; a device node only root
 * can make, and a terminal (-o /dev/stdout under sudo) is the user's own. */
static const char *in_place_refusal(const struct stat *sb)
{
	if (S_ISCHR(sb->st_mode) || S_ISBLK(sb->st_mode))
		return NULL;
	if (sb->st_uid != geteuid() && sb->st_uid != 0)
		return S_ISFIFO(sb->st_mode) ? "a FIFO of another user" : "a socket of another user";
	return NULL;
}

#define READER_WAIT_MS	30000	/* for a reader of our own FIFO */
#define READER_POLL_MS	50

/* open() of a FIFO of our own that may have no reader yet (`mkfifo p;
 * luabpfprof -o p & cat p`): polled, never blocked in, so that a FIFO
 * swapped in by someone else can never hold root. */
static int open_wait_reader(const char *path, int flags, const struct stat *sb)
{
	int fd;

	for (int waited = 0;; waited += READER_POLL_MS) {
		fd = open(path, flags);
		if (fd >= 0 || errno != ENXIO || !S_ISFIFO(sb->st_mode) ||
		    in_place_refusal(sb) || waited >= READER_WAIT_MS)
			return fd;
		usleep(READER_POLL_MS * 1000);
	}
}

/* Opens a device or FIFO for writing; 1 when it turned out to be a regular
 * file after all (raced), to be written the safe way.  O_NONBLOCK: a FIFO
 * without a reader fails at once (ENXIO) instead of blocking; it is
 * cleared once the owner is checked on what was opened. */
static int open_in_place(struct output *o, const char *path, char *err, size_t errlen)
{
	struct stat lsb, sb;
	int flags = O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK, fd;
	const char *why;

	if (!lstat(path, &lsb) && !S_ISLNK(lsb.st_mode))
		flags |= O_NOFOLLOW;
	if (stat(path, &sb))
		memset(&sb, 0, sizeof(sb));	/* gone: open() says why */
	else if ((why = in_place_refusal(&sb))) {
		snprintf(err, errlen, "cannot write %s: %s", path, why);
		return -1;
	}
	fd = open_wait_reader(path, flags, &sb);
	if (fd < 0) {
		snprintf(err, errlen, "cannot write %s: %s", path, errno == ENXIO ?
			 "a FIFO without a reader" : strerror(errno));
		return -1;
	}
	if (fstat(fd, &sb) || S_ISREG(sb.st_mode)) {
		close(fd);
		return 1;
	}
	why = in_place_refusal(&sb);
	if (why || fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)) {
		snprintf(err, errlen, "cannot write %s: %s", path, why ? why : strerror(errno));
		close(fd);
		return -1;
	}
	o->f = sink_open(fd, true);
	if (!o->f) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return 0;
}

/* The mode of the file being replaced, so 0600 stays 0600; else what a
 * plain creat() would give. */
static mode_t mode_for(const char *path)
{
	struct stat sb;
	mode_t mask;

	if (!lstat(path, &sb) && S_ISREG(sb.st_mode))
		return sb.st_mode & 07777;
	mask = umask(0);
	umask(mask);
	return 0666 & ~mask;
}

int output_open(struct output *o, const char *path, char *err, size_t errlen)
{
	struct stat sb;
	char *dircopy = NULL, *basecopy = NULL;
	int dirfd = -1;

	memset(o, 0, sizeof(*o));
	o->dirfd = -1;
	if (!path || !strcmp(path, "-")) {
		o->f = sink_open(STDOUT_FILENO, false);
		if (!o->f) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		return 0;
	}
	o->path = path;
	if (!stat(path, &sb) && S_ISDIR(sb.st_mode)) {
		snprintf(err, errlen, "cannot write %s: is a directory", path);
		return -1;
	}
	if (write_in_place(path)) {
		int r = open_in_place(o, path, err, errlen);

		if (r <= 0)
			return r;
	}
	dircopy = strdup(path);
	basecopy = strdup(path);
	if (!dircopy || !basecopy) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	dirfd = open(dirname(dircopy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		goto fail;
	}
	safe_dir_clean(dirfd);
	o->sf = safe_file_create(dirfd, basename(basecopy), mode_for(path), err, errlen);
	if (!o->sf) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		goto fail;
	}
	o->f = sink_open(safe_file_fd(o->sf), false);
	if (!o->f) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		goto fail;
	}
	o->dirfd = dirfd;
	free(dircopy);
	free(basecopy);
	return 0;
fail:
	safe_file_abort(o->sf);
	o->sf = NULL;
	if (dirfd >= 0)
		close(dirfd);
	free(dircopy);
	free(basecopy);
	return -1;
}

int output_commit(struct output *o, char *err, size_t errlen)
{
	int failed = fflush(o->f) != 0 || ferror(o->f);
	int saved = failed ? write_error(errno) : 0;

	if (fclose(o->f) && !failed) {
		failed = 1;
		saved = write_error(errno);
	}
	o->f = NULL;
	if (!o->sf) {
		/* stdout, or a device or FIFO written in place. */
		if (failed)
			snprintf(err, errlen, "writing %s failed: %s",
				 o->path ? o->path : "the report", strerror(saved));
		errno = saved;
		return failed ? -1 : 0;
	}
	if (failed) {
		safe_file_abort(o->sf);
	} else if (safe_file_commit(o->sf, true)) {
		failed = 1;
		saved = errno;
	}
	o->sf = NULL;
	close(o->dirfd);
	o->dirfd = -1;
	if (failed)
		snprintf(err, errlen, "cannot write %s: %s", o->path, strerror(saved));
	errno = saved;
	return failed ? -1 : 0;
}

void output_abort(struct output *o)
{
	if (o->f)
		fclose(o->f);
	o->f = NULL;
	if (o->sf) {
		safe_file_abort(o->sf);
		o->sf = NULL;
		close(o->dirfd);
		o->dirfd = -1;
	}
}
