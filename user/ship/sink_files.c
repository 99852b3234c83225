// SPDX-License-Identifier: MIT
/* Rolling pprof files with retention by count and size.  The directory is
 * root's own (base/safefile.h) and used through one descriptor opened
 * without following links: retention can only ever remove files in it. */
#define _GNU_SOURCE
#include "ship/sink_files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "base/safefile.h"

#define SUFFIX		".pb.gz"
#define STAMP_LEN	20	/* "20240131T120000.250Z" */

struct kept {
	char *name;
	uint64_t size;
};

struct sink_files {
	char *dir;		/* for messages */
	int dirfd;
	unsigned retain_count;
	unsigned long long retain_bytes;
	struct kept *files;	/* oldest first */
	size_t n, cap;
	uint64_t bytes;
};

/* Ours: a time stamp, '-', a stem, ".pb.gz". */
static bool is_ours(const char *name)
{
	size_t len = strlen(name), sl = strlen(SUFFIX);

	return len > STAMP_LEN + 1 + sl && name[0] >= '0' && name[0] <= '9' &&
	       name[8] == 'T' && name[STAMP_LEN - 1] == 'Z' && name[STAMP_LEN] == '-' &&
	       !strcmp(name + len - sl, SUFFIX);
}

static int keep(struct sink_files *s, const char *name, uint64_t size)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct kept *k = realloc(s->files, cap * sizeof(*k));

		if (!k)
			return -1;
		s->files = k;
		s->cap = cap;
	}
	s->files[s->n].name = strdup(name);
	if (!s->files[s->n].name)
		return -1;
	s->files[s->n++].size = size;
	s->bytes += size;
	return 0;
}

static int kept_cmp(const void *a, const void *b)
{
	return strcmp(((const struct kept *)a)->name, ((const struct kept *)b)->name);
}

/* Removes the oldest files until both limits hold (the newest file always
 * stays, even when it alone is over the size limit). */
static void apply_retention(struct sink_files *s)
{
	size_t drop = 0;

	while (s->n - drop > 1 &&
	       ((s->retain_count && s->n - drop > s->retain_count) ||
		(s->retain_bytes && s->bytes > s->retain_bytes))) {
		if (unlinkat(s->dirfd, s->files[drop].name, 0) && errno != ENOENT)
			log_warn("--out-dir: cannot remove %s/%s: %s", s->dir, s->files[drop].name,
				 strerror(errno));
		s->bytes -= s->files[drop].size;
		free(s->files[drop].name);
		drop++;
	}
	if (drop)
		memmove(s->files, s->files + drop, (s->n - drop) * sizeof(*s->files));
	s->n -= drop;
}

struct sink_files *sink_files_open(const char *dir, unsigned retain_count,
				   unsigned long long retain_bytes, char *err, size_t errlen)
{
	struct sink_files *s = calloc(1, sizeof(*s));
	struct dirent *de;
	DIR *d = NULL;
	int fd;

	if (!s || !(s->dir = strdup(dir))) {
		free(s);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->retain_count = retain_count;
	s->retain_bytes = retain_bytes;
	s->dirfd = safe_dir_open(dir, "--out-dir", 0750, err, errlen);
	if (s->dirfd < 0)
		goto fail;
	safe_dir_clean(s->dirfd);
	fd = dup(s->dirfd);
	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		if (fd >= 0)
			close(fd);
		snprintf(err, errlen, "cannot open --out-dir %s: %s", dir, strerror(errno));
		goto fail;
	}
	/* A dup shares the offset: safe_dir_clean read to the end. */
	rewinddir(d);
	while ((de = readdir(d))) {
		struct stat st;

		if (!is_ours(de->d_name))
			continue;
		if (!fstatat(s->dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) && S_ISREG(st.st_mode) &&
		    keep(s, de->d_name, (uint64_t)st.st_size)) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
	}
	closedir(d);
	d = NULL;
	if (faccessat(s->dirfd, ".", W_OK, AT_EACCESS)) {
		snprintf(err, errlen, "cannot write to --out-dir %s: %s", dir, strerror(errno));
		goto fail;
	}
	if (s->n > 1)
		qsort(s->files, s->n, sizeof(*s->files), kept_cmp);
	apply_retention(s);
	return s;
fail:
	if (d)
		closedir(d);
	sink_files_close(s);
	return NULL;
}

void sink_files_close(struct sink_files *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		free(s->files[i].name);
	if (s->dirfd >= 0)
		close(s->dirfd);
	free(s->files);
	free(s->dir);
	free(s);
}

int sink_files_write(struct sink_files *s, uint64_t start_ns, const char *stem,
		     const void *gz, size_t len)
{
	time_t secs = (time_t)(start_ns / 1000000000ull);
	char stamp[32], name[512];
	struct tm tm;

	gmtime_r(&secs, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%S", &tm);
	snprintf(name, sizeof(name), "%s.%03uZ-%s%s", stamp,
		 (unsigned)(start_ns / 1000000ull % 1000), stem, SUFFIX);
	if (safe_write_file(s->dirfd, name, gz, len, 0640, true)) {
		log_error("--out-dir: cannot write %s/%s: %s", s->dir, name, strerror(errno));
		return -1;
	}
	if (keep(s, name, len)) {
		log_error("--out-dir: out of memory");
		return -1;
	}
	/* Names sort by time; a clock step back could break that, so sort. */
	if (s->n > 1 && strcmp(s->files[s->n - 2].name, name) > 0)
		qsort(s->files, s->n, sizeof(*s->files), kept_cmp);
	apply_retention(s);
	return 0;
}
