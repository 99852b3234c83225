// SPDX-License-Identifier: MIT
/* Files and directories of profiles into a stackset (see
 * profile_read.h).  luabpfprof may run as root and the paths come from
 * the command line or a directory's listing: a name is opened without
 * following a symlink, without blocking on a FIFO, and read only when it
 * is a regular file of bounded size. */
#define _GNU_SOURCE
#include "report/profile_read.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "base/xalloc.h"

/* The names a directory's profiles have (the agent's: .pb.gz). */
static const char *const suffixes[] = { ".pb.gz", ".pprof", ".pb", ".otlp", ".folded" };

static int gunzip(const char *name, const uint8_t *in, size_t n, uint8_t **out, size_t *outlen,
		  char *err, size_t errlen)
{
	z_stream zs;
	size_t cap = n * 4 + 4096, len = 0;
	uint8_t *buf;
	int rc = Z_OK;

	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, 15 + 32) != Z_OK) {
		snprintf(err, errlen, "%s: out of memory", name);
		return -1;
	}
	if (cap > PROFILE_READ_MAX)
		cap = PROFILE_READ_MAX;
	buf = xmalloc(cap);
	zs.next_in = (Bytef *)in;
	zs.avail_in = (uInt)n;
	while (rc != Z_STREAM_END) {
		if (len == cap) {
			if (cap == PROFILE_READ_MAX) {
				snprintf(err, errlen, "%s: more than %u MiB uncompressed", name,
					 PROFILE_READ_MAX >> 20);
				goto fail;
			}
			cap = cap * 2 > PROFILE_READ_MAX ? PROFILE_READ_MAX : cap * 2;
			buf = xrealloc(buf, cap);
		}
		zs.next_out = buf + len;
		zs.avail_out = (uInt)(cap - len);
		rc = inflate(&zs, Z_NO_FLUSH);
		len = cap - zs.avail_out;
		if (rc != Z_OK && rc != Z_STREAM_END) {
			snprintf(err, errlen, "%s: a damaged gzip stream (%s)", name,
				 zs.msg ? zs.msg : "truncated");
			goto fail;
		}
	}
	inflateEnd(&zs);
	*out = buf;
	*outlen = len;
	return 0;
fail:
	inflateEnd(&zs);
	free(buf);
	return -1;
}

/* Folded stacks are text: no NUL, and a first line ending in a count. */
static bool looks_folded(const uint8_t *p, size_t n)
{
	size_t line = 0;

	while (line < n && p[line] != '\n')
		line++;
	if (memchr(p, 0, n < 4096 ? n : 4096))
		return false;
	while (line > 0 && (p[line - 1] == '\r' || p[line - 1] == ' '))
		line--;
	return line > 0 && p[line - 1] >= '0' && p[line - 1] <= '9';
}

int profile_read_buf(const char *name, const void *data, size_t n, const struct read_window *w,
		     struct stackset *s, char *err, size_t errlen)
{
	const uint8_t *p = data;
	uint8_t *plain = NULL;
	size_t len = n;
	int rc;

	if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b) {
		if (gunzip(name, p, n, &plain, &len, err, errlen))
			return -1;
		p = plain;
	}
	if (len && looks_folded(p, len)) {
		/* No time in the file: a window never takes it. */
		rc = w && w->to_ns ? 1 : read_folded(name, (const char *)p, len, s, err, errlen);
	} else {
		/* Both are protobuf: a request has no string table at its top
		 * level, which pprof must have. */
		rc = read_pprof(name, p, len, w, s, err, errlen);
		if (rc == READ_NOT_PPROF)
			rc = read_otlp(name, p, len, w, s, err, errlen);
	}
	free(plain);
	return rc;
}

/* The whole of a regular file opened at dirfd/name. */
static int read_file(int dirfd, const char *name, const char *shown, uint8_t **out, size_t *n,
		     char *err, size_t errlen)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	struct stat st;
	size_t got = 0;

	if (fd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", shown,
			 errno == ELOOP ? "a symlink (not followed)" : strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > PROFILE_READ_MAX) {
		snprintf(err, errlen, "%s: %s", shown, S_ISREG(st.st_mode) ?
			 "larger than 256 MiB" : "not a regular file");
		close(fd);
		return -1;
	}
	*out = xmalloc((size_t)st.st_size + 1);
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, *out + got, (size_t)st.st_size - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	*n = got;
	return 0;
}

static int read_one(int dirfd, const char *name, const char *shown, const struct read_window *w,
		    struct stackset *s, char *err, size_t errlen)
{
	uint8_t *data;
	size_t n;
	int rc;

	if (read_file(dirfd, name, shown, &data, &n, err, errlen))
		return -1;
	rc = profile_read_buf(shown, data, n, w, s, err, errlen);
	free(data);
	return rc;
}

static bool is_profile_name(const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t sl = strlen(suffixes[i]);

		if (len > sl && name[0] != '.' && !strcmp(name + len - sl, suffixes[i]))
			return true;
	}
	return false;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every profile in the directory, in name order (the agent's names sort
 * by time).  Files the window leaves out are skipped. */
static int read_dir(int fd, const char *path, const struct read_window *w,
		    struct stackset *s, char *err, size_t errlen)
{
	DIR *d = fdopendir(fd);
	struct dirent *de;
	char **names = NULL, shown[4096];
	size_t n = 0, cap = 0;
	int rc = 0;

	if (!d) {
		close(fd);
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (!is_profile_name(de->d_name))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			names = xrealloc(names, cap * sizeof(*names));
		}
		names[n++] = xstrdup(de->d_name);
	}
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n && rc >= 0; i++) {
		snprintf(shown, sizeof(shown), "%s/%s", path, names[i]);
		rc = read_one(dirfd(d), names[i], shown, w, s, err, errlen);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	closedir(d);
	if (rc >= 0 && !s->files) {
		snprintf(err, errlen, "%s: no profile%s (*.pb.gz, *.pprof, *.folded)", path,
			 w && w->to_ns ? " in that window" : "");
		return -1;
	}
	return rc < 0 ? -1 : 0;
}

int profile_read_path(const char *path, const struct read_window *w, struct stackset *s,
		      char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	struct stat st;
	int rc;

	if (fd < 0 && errno != ELOOP) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (fd >= 0 && !fstat(fd, &st) && S_ISDIR(st.st_mode))
		return read_dir(fd, path, w, s, err, errlen);
	if (fd >= 0)
		close(fd);
	rc = read_one(AT_FDCWD, path, path, w, s, err, errlen);
	if (rc == 1) {
		snprintf(err, errlen, "%s: outside the window", path);
		return -1;
	}
	return rc;
}
