/* Spool: a FIFO of requests bounded in bytes, on disk or in memory.
 *
 * On disk each request is one file, DIR/<id as 16 hex digits>.req, written
 * to a temporary name and renamed, so a crash never leaves half a request:
 *   "LBPSPOOL 1\n" path "\n" content-type "\n" body-length "\n" body
 * Ids grow across runs, so the oldest file is the smallest name.
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
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "ship/push.h"
#include "base/strbuf.h"

#define MAGIC		"LBPSPOOL 1\n"
#define ID_DIGITS	16

struct spool_entry {
	uint64_t id, size;
	struct push_req *req;	/* memory spool only */
};

struct spool {
	char *dir;		/* NULL: memory */
	uint64_t max_bytes;
	struct spool_entry *e;	/* oldest first */
	size_t n, cap;
	uint64_t next_id;
	struct spool_stats st;
};

static void entry_path(const struct spool *s, uint64_t id, bool tmp, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s%0*llx.%s", s->dir, tmp ? "." : "", ID_DIGITS,
		 (unsigned long long)id, tmp ? "tmp" : "req");
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
	char path[4096];

	if (s->dir) {
		entry_path(s, s->e[i].id, false, path, sizeof(path));
		unlink(path);
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

static int entry_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct spool_entry *)a)->id, y = ((const struct spool_entry *)b)->id;

	return (x > y) - (x < y);
}

/* Picks up the requests a previous run left; removes half-written ones. */
static int load_dir(struct spool *s, char *err, size_t errlen)
{
	DIR *d = opendir(s->dir);
	struct dirent *de;
	char path[4096];

	if (!d) {
		snprintf(err, errlen, "cannot open --spool-dir %s: %s", s->dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		unsigned long long id;
		struct stat st;
		char *end;
		size_t len = strlen(de->d_name);

		if (de->d_name[0] == '.' && len > 4 && !strcmp(de->d_name + len - 4, ".tmp")) {
			snprintf(path, sizeof(path), "%s/%s", s->dir, de->d_name);
			unlink(path);
			continue;
		}
		if (len != ID_DIGITS + 4 || strcmp(de->d_name + ID_DIGITS, ".req"))
			continue;
		id = strtoull(de->d_name, &end, 16);
		snprintf(path, sizeof(path), "%s/%s", s->dir, de->d_name);
		if (end != de->d_name + ID_DIGITS || stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		if (append_entry(s, id, (uint64_t)st.st_size, NULL))
			break;
		if (id >= s->next_id)
			s->next_id = id + 1;
	}
	closedir(d);
	if (s->n > 1)
		qsort(s->e, s->n, sizeof(*s->e), entry_cmp);
	return 0;
}

struct spool *spool_open(const char *dir, uint64_t max_bytes, char *err, size_t errlen)
{
	struct spool *s = calloc(1, sizeof(*s));

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->max_bytes = max_bytes;
	s->next_id = 1;
	if (dir) {
		s->dir = strdup(dir);
		if (!s->dir || (mkdir(dir, 0700) && errno != EEXIST)) {
			snprintf(err, errlen, "cannot create --spool-dir %s: %s", dir, strerror(errno));
			goto fail;
		}
		if (load_dir(s, err, errlen))
			goto fail;
		if (s->n)
			log_warn("spool %s: %zu undelivered profile(s) from an earlier run will be sent first",
				 dir, s->n);
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
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		free_req(s->e[i].req);
	free(s->e);
	free(s->dir);
	free(s);
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Writes r as file id; returns its size, or 0 on error. */
static uint64_t write_file(struct spool *s, uint64_t id, const struct push_req *r)
{
	struct strbuf head = STRBUF_INIT;
	char tmp[4096], path[4096];
	uint64_t size = 0;
	int fd;

	entry_path(s, id, true, tmp, sizeof(tmp));
	entry_path(s, id, false, path, sizeof(path));
	sb_printf(&head, "%s%s\n%s\n%zu\n", MAGIC, r->path, r->content_type, r->body_len);
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		goto cleanup;
	if (write_all(fd, head.buf, head.len) || write_all(fd, r->body, r->body_len) ||
	    fsync(fd)) {
		close(fd);
		unlink(tmp);
		goto cleanup;
	}
	close(fd);
	if (rename(tmp, path)) {
		unlink(tmp);
		goto cleanup;
	}
	size = head.len + r->body_len;
cleanup:
	if (!size)
		log_warn("spool: cannot write %s: %s", path, strerror(errno));
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
	uint64_t size = strlen(MAGIC) + strlen(r->path) + strlen(r->content_type) + 32 +
			r->body_len;
	uint64_t id = s->next_id++;
	struct push_req *copy = NULL;
	int dropped = 0;

	if (size > s->max_bytes) {
		s->st.dropped++;
		s->st.dropped_bytes += size;
		return -1;
	}
	while (s->n && s->st.bytes + size > s->max_bytes) {
		drop_oldest(s);
		dropped++;
	}
	if (s->dir) {
		size = write_file(s, id, r);
	} else {
		copy = copy_req(r);
		if (!copy)
			size = 0;
	}
	if (!size || append_entry(s, id, size, copy)) {
		free_req(copy);
		s->st.dropped++;
		s->st.dropped_bytes += r->body_len;
		return -1;
	}
	return dropped;
}

/* Reads request file id; -1 if it is missing or malformed. */
static int read_file(const struct spool *s, uint64_t id, struct push_req *out)
{
	char path[4096], line[32768], type[256];
	size_t len;
	FILE *f;
	int err = -1;

	memset(out, 0, sizeof(*out));
	entry_path(s, id, false, path, sizeof(path));
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (!fgets(line, sizeof(line), f) || strcmp(line, MAGIC))
		goto cleanup;
	if (!fgets(line, sizeof(line), f) || !fgets(type, sizeof(type), f))
		goto cleanup;
	line[strcspn(line, "\n")] = '\0';
	type[strcspn(type, "\n")] = '\0';
	if (fscanf(f, "%zu", &len) != 1 || fgetc(f) != '\n' || len > s->max_bytes)
		goto cleanup;
	out->path = strdup(line);
	out->content_type = strdup(type);
	out->body = malloc(len ? len : 1);
	out->body_len = len;
	if (!out->path || !out->content_type || !out->body || fread(out->body, 1, len, f) != len)
		goto cleanup;
	err = 0;
cleanup:
	fclose(f);
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
		} else if (!read_file(s, *id, out)) {
			return 0;
		}
		log_warn("spool: request %llu unreadable; dropped", (unsigned long long)*id);
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
