/* Safe report files: mkstemp + rename. */
#define _GNU_SOURCE
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* Opens a device or FIFO for writing; 1 when it turned out to be a regular
 * file after all (raced), to be written the safe way. */
static int open_in_place(struct output *o, const char *path, char *err, size_t errlen)
{
	struct stat lsb, sb;
	int flags = O_WRONLY | O_NOCTTY | O_CLOEXEC, fd;

	if (!lstat(path, &lsb) && !S_ISLNK(lsb.st_mode))
		flags |= O_NOFOLLOW;
	fd = open(path, flags);
	if (fd < 0) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &sb) || S_ISREG(sb.st_mode)) {
		close(fd);
		return 1;
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return 0;
}

int output_open(struct output *o, const char *path, char *err, size_t errlen)
{
	struct stat sb;
	char *dircopy = NULL;
	mode_t mask;
	int fd = -1;

	memset(o, 0, sizeof(*o));
	if (!path || !strcmp(path, "-")) {
		o->f = stdout;
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
	if (!dircopy || asprintf(&o->tmp, "%s/.luabpfprof.XXXXXX", dirname(dircopy)) < 0) {
		o->tmp = NULL;
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	/* O_EXCL under the hood: never follows or reuses an existing name. */
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		goto fail;
	}
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) || !(o->f = fdopen(fd, "w"))) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		goto fail;
	}
	free(dircopy);
	return 0;
fail:
	if (fd >= 0) {
		close(fd);
		unlink(o->tmp);
	}
	free(o->tmp);
	o->tmp = NULL;
	free(dircopy);
	return -1;
}

int output_commit(struct output *o, char *err, size_t errlen)
{
	int failed = fflush(o->f) != 0 || ferror(o->f);
	int saved = errno;

	if (!o->tmp) {
		/* stdout, or a device or FIFO written in place. */
		if (o->path && fclose(o->f) && !failed) {
			failed = 1;
			saved = errno;
		}
		if (o->path)
			o->f = NULL;
		if (failed)
			snprintf(err, errlen, "writing %s failed: %s",
				 o->path ? o->path : "the report", strerror(saved));
		errno = saved;
		return failed ? -1 : 0;
	}
	if (fsync(fileno(o->f)) && !failed) {
		failed = 1;
		saved = errno;
	}
	if (fclose(o->f) && !failed) {
		failed = 1;
		saved = errno;
	}
	o->f = NULL;
	if (!failed && rename(o->tmp, o->path)) {
		failed = 1;
		saved = errno;
	}
	if (failed) {
		snprintf(err, errlen, "cannot write %s: %s", o->path, strerror(saved));
		unlink(o->tmp);
	}
	free(o->tmp);
	o->tmp = NULL;
	errno = saved;
	return failed ? -1 : 0;
}

void output_abort(struct output *o)
{
	if (o->tmp) {
		if (o->f)
			fclose(o->f);
		unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
	} else if (o->path && o->f) {
		fclose(o->f);
	}
	o->f = NULL;
}
