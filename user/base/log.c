// SPDX-License-Identifier: MIT
/* One line per message, prefixed with the program name. */
#include "base/log.h"

#include <errno.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/safefile.h"
#include "base/textsafe.h"

bool log_is_verbose;
static bool log_timestamps;

void log_set_timestamps(bool on)
{
	log_timestamps = on;
}

static void put_timestamp(void)
{
	char when[32];
	time_t now = time(NULL);
	struct tm tm;

	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S%z ", localtime_r(&now, &tm));
	fputs(when, stderr);
}

static void vlog(const char *prefix, const char *fmt, va_list ap)
{
	char small[1024], *msg = small;
	va_list again;
	int n;

	va_copy(again, ap);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	if (n >= (int)sizeof(small) && !(msg = malloc((size_t)n + 1)))
		msg = small;	/* cut, rather than lose the message */
	else if (msg != small)
		vsnprintf(msg, (size_t)n + 1, fmt, again);
	va_end(again);
	if (log_timestamps)
		put_timestamp();
	fprintf(stderr, "luabpfprof: %s", prefix);
	/* Messages quote a target's comm, paths and names: one line of
	 * printable text, whatever they hold. */
	text_fput(stderr, n < 0 ? "(unprintable message)" : msg);
	fputc('\n', stderr);
	if (msg != small)
		free(msg);
}

/* Each level is vlog with its prefix; verbose lines only when asked. */
#define LOG_LEVEL(name, prefix, wanted)			\
	void name(const char *fmt, ...)			\
	{						\
		va_list ap;				\
							\
		if (!(wanted))				\
			return;				\
		va_start(ap, fmt);			\
		vlog(prefix, fmt, ap);			\
		va_end(ap);				\
	}

LOG_LEVEL(log_error, "", true)
LOG_LEVEL(log_warn, "warning: ", true)
LOG_LEVEL(log_info, "", true)
LOG_LEVEL(log_verbose, "", log_is_verbose)

int log_to_file(const char *path)
{
	char *dircopy = strdup(path), *basecopy = strdup(path), err[512];
	int dirfd = -1, fd = -1, rc = -1;

	if (!dircopy || !basecopy) {
		log_error("out of memory");
		goto out;
	}
	dirfd = safe_dir_open(dirname(dircopy), "--log-file directory", 0, err, sizeof(err));
	if (dirfd < 0) {
		log_error("%s", err);
		goto out;
	}
	fd = safe_open_append(dirfd, basename(basecopy), 0640);
	if (fd < 0) {
		log_error("cannot open --log-file %s: %s", path,
			  errno == ELOOP ? "it is a symbolic link" :
			  errno == EINVAL ? "not a regular file" : strerror(errno));
		goto out;
	}
	fflush(stderr);
	if (dup2(fd, STDERR_FILENO) < 0) {
		log_error("cannot log to %s: %s", path, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	if (dirfd >= 0)
		close(dirfd);
	free(dircopy);
	free(basecopy);
	return rc;
}
