// SPDX-License-Identifier: MIT
/* Spool: a FIFO of requests bounded in bytes, on disk or in memory.
 *
 * On disk the directory is root's own (base/safefile.h), used through one
 * descriptor.  Each request is one file, written whole or not at all:
 *   DIR/<id as 16 hex digits>-<owner>.req
 *   "LBPSPOOL 2\n" "to " destination "\n" path "\n" content-type "\n"
 *   body-length "\n" body
 * The path is only ever a known route with a plain query string
 * (push_path_ok), checked when written and again when read: a spooled
 * request can never change the host or the path prefix, which come from
 * the agent's own --push URL.
 *
 * The destination is the backend, its API and the tenant the request was
 * built for (spool_open's dest).  A request is only ever sent where it was
 * meant to go: an agent adopts only the files of its own destination and
 * leaves the others for an agent of theirs; a file of the older format,
 * which names none, is dropped.  The credentials are not part of it: a
 * rotated token still delivers what was spooled under the old one.
 *
 * Several agents may share a directory.  Each owns the files with its
 * owner tag and holds an flock on DIR/<owner>.lock while it runs; a new
 * agent adopts the files of owners whose lock is free (they are gone) by
 * renaming them to its own tag, so every file has one sender and none is
 * overwritten (names are created with O_EXCL semantics).  Ids grow per
 * owner, so the oldest file is the smallest id.
 */
#define _GNU_SOURCE
#include "ship/spool.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "base/safefile.h"
#include "base/strbuf.h"
#include "ship/push.h"

#define MAGIC		"LBPSPOOL 2\n"
#define DEST_MAX	4096	/* a destination line beyond this is refused */
#define ID_DIGITS	16
#define OWNER_DIGITS	8
#define HEAD_MAX	65536	/* a head beyond this is not one of ours */

struct spool_entry {
	uint64_t id, size;
	struct push_req *req;	/* memory spool only */
};

struct spool {
	char *dir;		/* NULL: memory */
	int dirfd, lockfd;
	char owner[OWNER_DIGITS + 1];
	char *dest;		/* "to DEST": the head's second line */
	uint64_t max_bytes;
	size_t others;		/* files left for other destinations */
	struct spool_entry *e;	/* oldest first */
	size_t n, cap;
	uint64_t next_id;
	struct spool_stats st;
};

static void entry_name(const struct spool *s, uint64_t id, char *buf, size_t len)
{
	snprintf(buf, len, "%0*llx-%s.req", ID_DIGITS, (unsigned long long)id, s->owner);
}

static int append_entry(struct spool *s, uint64_t id, uint64_t size, struct push_req *req)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct spool_entry *e = realloc(s->e, cap * sizeof(*e));

		if (!e)
			return -1;
		s->e = e;
		s->cap = cap;
	}
	s->e[s->n++] = (struct spool_entry){ id, size, req };
	s->st.queued = s->n;
	s->st.bytes += size;
	return 0;
}

static void free_req(struct push_req *r)
{
	if (!r)
		return;
	push_req_free(r);
	free(r);
}

/* Removes entry i (its file too). */
static void drop_at(struct spool *s, size_t i)
{
	char name[64];

	if (s->dir) {
		entry_name(s, s->e[i].id, name, sizeof(name));
		unlinkat(s->dirfd, name, 0);
	}
	free_req(s->e[i].req);
	s->st.bytes -= s->e[i].size;
	memmove(&s->e[i], &s->e[i + 1], (s->n - i - 1) * sizeof(*s->e));
	s->n--;
	s->st.queued = s->n;
}

static void drop_oldest(struct spool *s)
{
	s->st.dropped++;
	s->st.dropped_bytes += s->e[0].size;
	drop_at(s, 0);
}

/* ------------------------------------------------------------------------ */
/* Owners								    */
/* ------------------------------------------------------------------------ */

static bool is_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strchr("0123456789abcdef", s[i]))
			return false;
	return true;
}

/* Takes a fresh owner tag and its lock.  The lock file is locked under a
 * dot name and then renamed: no other agent ever sees it unlocked. */
static int take_ownership(struct spool *s, char *err, size_t errlen)
{
	char tmp[64], name[64];
	unsigned char r[OWNER_DIGITS / 2];

	for (int tries = 0; tries < 16; tries++) {
		if (getrandom(r, sizeof(r), 0) != sizeof(r))
			break;
		for (size_t i = 0; i < sizeof(r); i++)
			snprintf(s->owner + 2 * i, 3, "%02x", r[i]);
		snprintf(tmp, sizeof(tmp), ".lock-%s", s->owner);
		snprintf(name, sizeof(name), "%s.lock", s->owner);
		if (!faccessat(s->dirfd, name, F_OK, AT_SYMLINK_NOFOLLOW))
			continue;
		s->lockfd = openat(s->dirfd, tmp,
				   O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (s->lockfd < 0 && errno == EEXIST)
			continue;
		if (s->lockfd < 0 || flock(s->lockfd, LOCK_EX | LOCK_NB) ||
		    renameat2(s->dirfd, tmp, s->dirfd, name, RENAME_NOREPLACE))
			break;
		return 0;
	}
	snprintf(err, errlen, "cannot lock --spool-dir %s: %s", s->dir, strerror(errno));
	if (s->lockfd >= 0)
		unlinkat(s->dirfd, tmp, 0);
	return -1;
}

/* Whether lock file name belongs to an agent that is gone; then it is
 * removed (its files are being adopted). */
static bool owner_gone(struct spool *s, const char *name)
{
	int fd = openat(s->dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	bool gone;

	if (fd < 0)
		return false;
	gone = !flock(fd, LOCK_EX | LOCK_NB);
	close(fd);
	return gone;
}

struct found {
	char name[64];
	uint64_t id;
};

static int found_cmp(const void *a, const void *b)
{
	const struct found *x = a, *y = b;

	if (x->id != y->id)
		return (x->id > y->id) - (x->id < y->id);
	return strcmp(x->name, y->name);
}

/* The requests of gone owners, and of the spool format without owners.
 * Gone owners' lock files are collected in dead for removal. */
static size_t scan_orphans(struct spool *s, DIR *d, struct found **out, struct strbuf *dead)
{
	struct found *f = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;

	while ((de = readdir(d))) {
		const char *nm = de->d_name;
		size_t len = strlen(nm);
		bool bare = len == ID_DIGITS + 4 && !strcmp(nm + ID_DIGITS, ".req");
		bool owned = len == ID_DIGITS + 1 + OWNER_DIGITS + 4 && nm[ID_DIGITS] == '-' &&
			     !strcmp(nm + len - 4, ".req") && is_hex(nm + ID_DIGITS + 1, OWNER_DIGITS);
		char lock[64];

		if (len == OWNER_DIGITS + 5 && !strcmp(nm + OWNER_DIGITS, ".lock") &&
		    strncmp(nm, s->owner, OWNER_DIGITS) && owner_gone(s, nm)) {
			sb_puts(dead, nm);
			sb_putc(dead, '\n');
		}
		if ((!bare && !owned) || !is_hex(nm, ID_DIGITS))
			continue;
		if (owned) {
			snprintf(lock, sizeof(lock), "%.*s.lock", OWNER_DIGITS, nm + ID_DIGITS + 1);
			if (!strncmp(nm + ID_DIGITS + 1, s->owner, OWNER_DIGITS) ||
			    (!faccessat(s->dirfd, lock, F_OK, AT_SYMLINK_NOFOLLOW) &&
			     !owner_gone(s, lock)))
				continue;
		}
		if (n == cap) {
			struct found *g = realloc(f, (cap = cap ? cap * 2 : 64) * sizeof(*f));

			if (!g)
				break;
			f = g;
		}
		snprintf(f[n].name, sizeof(f[n].name), "%s", nm);
		f[n++].id = strtoull(nm, NULL, 16);
	}
	*out = f;
	return n;
}

/* Whether file name is a request for another destination than ours: of
 * this format, with another "to" line.  Those stay for their own agent.
 * A file of the older format is adopted, and dropped when it is read. */
static bool for_other_dest(const struct spool *s, const char *name)
{
	size_t mlen = strlen(MAGIC), dlen = strlen(s->dest), want = mlen + dlen + 1, got = 0;
	int fd = openat(s->dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	char buf[sizeof(MAGIC) + DEST_MAX + 8];
	ssize_t n;

	if (fd < 0)
		return false;
	while (got < want && ((n = read(fd, buf + got, want - got)) > 0 ||
			      (n < 0 && errno == EINTR)))
		if (n > 0)
			got += (size_t)n;
	close(fd);
	if (got < mlen || memcmp(buf, MAGIC, mlen))
		return false;
	return got < want || memcmp(buf + mlen, s->dest, dlen) || buf[mlen + dlen] != '\n';
}

/* Adopts what gone agents left for our destination: renamed to our tag,
 * oldest first.  A rename that fails was another agent's adoption: that
 * file is theirs. */
static int load_dir(struct spool *s, char *err, size_t errlen)
{
	struct strbuf dead = STRBUF_INIT;
	struct found *f = NULL;
	int fd = dup(s->dirfd);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	size_t n;

	if (!d) {
		if (fd >= 0)
			close(fd);
		snprintf(err, errlen, "cannot read --spool-dir %s: %s", s->dir, strerror(errno));
		return -1;
	}
	/* A dup shares the offset: safe_dir_clean read to the end. */
	rewinddir(d);
	n = scan_orphans(s, d, &f, &dead);
	closedir(d);
	if (n > 1)
		qsort(f, n, sizeof(*f), found_cmp);
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		char name[64];
		uint64_t id = s->next_id;

		entry_name(s, id, name, sizeof(name));
		if (fstatat(s->dirfd, f[i].name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		if (for_other_dest(s, f[i].name)) {
			s->others++;
			continue;
		}
		if (renameat2(s->dirfd, f[i].name, s->dirfd, name, RENAME_NOREPLACE))
			continue;
		s->next_id++;
		if (append_entry(s, id, (uint64_t)st.st_size, NULL))
			break;
	}
	for (char *line = dead.buf, *nl; line && (nl = strchr(line, '\n')); line = nl + 1) {
		*nl = '\0';
		unlinkat(s->dirfd, line, 0);
	}
	sb_free(&dead);
	free(f);
	return 0;
}

/* "to DEST", or NULL (reported) when dest could not stand on one line. */
static char *dest_line(const char *dest, char *err, size_t errlen)
{
	struct strbuf b = STRBUF_INIT;

	for (const char *p = dest; *p; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f) {
			snprintf(err, errlen, "spool: the destination holds control characters");
			return NULL;
		}
	}
	if (strlen(dest) > DEST_MAX) {
		snprintf(err, errlen, "spool: the destination is longer than %d bytes", DEST_MAX);
		return NULL;
	}
	sb_printf(&b, "to %s", dest);
	return b.buf;
}

struct spool *spool_open(const char *dir, const char *dest, uint64_t max_bytes, char *err,
			 size_t errlen)
{
	struct spool *s = calloc(1, sizeof(*s));

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->max_bytes = max_bytes;
	s->next_id = 1;
	s->dirfd = s->lockfd = -1;
	if (dir) {
		s->dir = strdup(dir);
		if (!s->dir) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		s->dest = dest_line(dest ? dest : "", err, errlen);
		if (!s->dest)
			goto fail;
		s->dirfd = safe_dir_open(dir, "--spool-dir", 0700, err, errlen);
		if (s->dirfd < 0 || take_ownership(s, err, errlen))
			goto fail;
		safe_dir_clean(s->dirfd);
		if (load_dir(s, err, errlen))
			goto fail;
		if (s->n)
			log_warn("spool %s: %zu undelivered profile(s) from an earlier run will be sent first",
				 dir, s->n);
		if (s->others)
			log_warn("spool %s: %zu profile(s) spooled for another backend or tenant are left for it, not sent to this one",
				 dir, s->others);
		while (s->n && s->st.bytes > s->max_bytes)
			drop_oldest(s);
	}
	return s;
fail:
	spool_close(s);
	return NULL;
}

void spool_close(struct spool *s)
{
	char name[64];

	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		free_req(s->e[i].req);
	/* The lock goes with the process; the name may stay (the next
	 * agent finds it free and removes it). */
	if (s->lockfd >= 0) {
		if (!s->n) {
			snprintf(name, sizeof(name), "%s.lock", s->owner);
			unlinkat(s->dirfd, name, 0);
		}
		close(s->lockfd);
	}
	if (s->dirfd >= 0)
		close(s->dirfd);
	free(s->e);
	free(s->dir);
	free(s->dest);
	free(s);
}

/* ------------------------------------------------------------------------ */
/* Requests								    */
/* ------------------------------------------------------------------------ */

static bool type_ok(const char *t)
{
	return !strcmp(t, "application/json") || !strcmp(t, "application/octet-stream") ||
	       !strcmp(t, PUSH_OTLP_TYPE);
}

/* Writes r as file id; returns its size, or 0 on error. */
static uint64_t write_req(struct spool *s, uint64_t id, const struct push_req *r)
{
	struct strbuf head = STRBUF_INIT;
	struct safe_file *f;
	char name[64], err[128];
	uint64_t size = 0;

	entry_name(s, id, name, sizeof(name));
	sb_printf(&head, "%s%s\n%s\n%s\n%zu\n", MAGIC, s->dest, r->path, r->content_type,
		  r->body_len);
	f = safe_file_create(s->dirfd, name, 0600, err, sizeof(err));
	if (!f)
		goto cleanup;
	if (safe_write_all(safe_file_fd(f), head.buf, head.len) ||
	    safe_write_all(safe_file_fd(f), r->body, r->body_len)) {
		safe_file_abort(f);
		goto cleanup;
	}
	if (!safe_file_commit(f, false))
		size = head.len + r->body_len;
cleanup:
	if (!size)
		log_warn("spool: cannot write %s/%s: %s", s->dir, name, strerror(errno));
	sb_free(&head);
	return size;
}

static struct push_req *copy_req(const struct push_req *r)
{
	struct push_req *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->path = strdup(r->path);
	c->content_type = strdup(r->content_type);
	c->body = malloc(r->body_len ? r->body_len : 1);
	c->body_len = r->body_len;
	if (!c->path || !c->content_type || !c->body) {
		free_req(c);
		return NULL;
	}
	memcpy(c->body, r->body, r->body_len);
	return c;
}

int spool_add(struct spool *s, const struct push_req *r)
{
	uint64_t size = strlen(MAGIC) + (s->dest ? strlen(s->dest) + 1 : 0) + strlen(r->path) + strlen(r->content_type) + 32 +
			r->body_len;
	uint64_t id = s->next_id++;
	struct push_req *copy = NULL;
	int dropped = 0;

	if (size > s->max_bytes || !push_path_ok(r->path) || !type_ok(r->content_type)) {
		s->st.dropped++;
		s->st.dropped_bytes += size;
		return SPOOL_TOO_LARGE;
	}
	while (s->n && s->st.bytes + size > s->max_bytes) {
		drop_oldest(s);
		dropped++;
	}
	if (s->dir) {
		size = write_req(s, id, r);
	} else {
		copy = copy_req(r);
		if (!copy)
			size = 0;
	}
	if (!size || append_entry(s, id, size, copy)) {
		free_req(copy);
		s->st.dropped++;
		s->st.dropped_bytes += r->body_len;
		return SPOOL_WRITE_FAILED;
	}
	return dropped;
}

/* The next line of buf[*pos..len) as a string of its own; NULL if none. */
static char *next_line(char *buf, size_t len, size_t *pos)
{
	char *start = buf + *pos, *nl = memchr(start, '\n', len - *pos);

	if (!nl)
		return NULL;
	*nl = '\0';
	*pos = (size_t)(nl - buf) + 1;
	return start;
}

/* Reads request file id, of any size the spool holds (no line limit);
 * -1 if it is missing, malformed or not a safe request. */
static int read_req(const struct spool *s, uint64_t id, struct push_req *out)
{
	char name[64], *buf = NULL, *to, *path, *type, *lenline, *end;
	size_t pos = 0, got = 0, len;
	struct stat st;
	int fd, err = -1;

	memset(out, 0, sizeof(*out));
	entry_name(s, id, name, sizeof(name));
	fd = openat(s->dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (uint64_t)st.st_size > s->max_bytes + HEAD_MAX || !(buf = malloc((size_t)st.st_size + 1)))
		goto cleanup;
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			goto cleanup;
		got += (size_t)n;
	}
	if (got < strlen(MAGIC) || memcmp(buf, MAGIC, strlen(MAGIC)))
		goto cleanup;
	pos = strlen(MAGIC);
	to = next_line(buf, got, &pos);
	if (!to || strcmp(to, s->dest))
		goto cleanup;
	path = next_line(buf, got, &pos);
	type = next_line(buf, got, &pos);
	lenline = next_line(buf, got, &pos);
	if (!path || !type || !lenline || !push_path_ok(path) || !type_ok(type))
		goto cleanup;
	len = strtoull(lenline, &end, 10);
	if (end == lenline || *end || len != got - pos)
		goto cleanup;
	out->path = strdup(path);
	out->content_type = strdup(type);
	out->body = malloc(len ? len : 1);
	out->body_len = len;
	if (!out->path || !out->content_type || !out->body)
		goto cleanup;
	memcpy(out->body, buf + pos, len);
	err = 0;
cleanup:
	close(fd);
	free(buf);
	if (err)
		push_req_free(out);
	return err;
}

int spool_peek(struct spool *s, struct push_req *out, uint64_t *id)
{
	while (s->n) {
		struct push_req *c;

		*id = s->e[0].id;
		if (!s->dir) {
			c = copy_req(s->e[0].req);
			if (c) {
				*out = *c;
				free(c);
				return 0;
			}
		} else if (!read_req(s, *id, out)) {
			return 0;
		}
		log_warn("spool: request %llu unreadable or unsafe; dropped", (unsigned long long)*id);
		drop_oldest(s);
	}
	return -1;
}

void spool_remove(struct spool *s, uint64_t id)
{
	for (size_t i = 0; i < s->n; i++) {
		if (s->e[i].id == id) {
			drop_at(s, i);
			return;
		}
	}
}

void spool_get_stats(const struct spool *s, struct spool_stats *st)
{
	*st = s->st;
}
