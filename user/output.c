/* Safe report files: mkstemp + rename. */
#define _GNU_SOURCE
#include "output.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
		if (failed)
			snprintf(err, errlen, "writing the report failed: %s", strerror(saved));
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
	}
	o->f = NULL;
}
