// SPDX-License-Identifier: MIT
/* The dump model (see dump.h). */
#include "model/dump.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

void dump_init(struct dump *d, pid_t pid, const char *layout, uint64_t g)
{
	memset(d, 0, sizeof(*d));
	d->pid = pid;
	d->layout = layout;
	d->g = g;
}

struct dump_thread *dump_add_thread(struct dump *d, uint64_t addr, const char *status)
{
	struct dump_thread *t;

	if (d->n >= DUMP_THREADS_MAX) {
		d->loss.threads_dropped++;
		return NULL;
	}
	if (d->n == d->cap) {
		d->cap = d->cap ? 2 * d->cap : 64;
		d->threads = xrealloc(d->threads, d->cap * sizeof(*d->threads));
	}
	t = &d->threads[d->n++];
	memset(t, 0, sizeof(*t));
	t->addr = addr;
	t->status = status;
	return t;
}

/* ==== Interned strings ==== */

struct str_key {
	const char *s;
	size_t len;
};

static uint64_t str_hash(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

static uint64_t entry_hash(const void *ctx, uint32_t e)
{
	const char *s = ((const struct dump *)ctx)->strs[e];

	return str_hash(s, strlen(s));
}

static bool entry_match(const void *ctx, uint32_t e, const void *key)
{
	const char *s = ((const struct dump *)ctx)->strs[e];
	const struct str_key *k = key;

	return !strncmp(s, k->s, k->len) && s[k->len] == '\0';
}

static const struct hashidx_ops str_ops = { entry_hash, entry_match };

/* The length of s kept: at most DUMP_NAME_MAX bytes, never cutting a
 * UTF-8 sequence (a cut one would be escaped as bytes). */
static size_t kept_len(const char *s, bool *cut)
{
	size_t n = strnlen(s, DUMP_NAME_MAX + 1);

	*cut = n > DUMP_NAME_MAX;
	if (!*cut)
		return n;
	n = DUMP_NAME_MAX - 3;
	while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	return n;
}

/* s interned (cut to DUMP_NAME_MAX, "..." at the cut); NULL when the
 * bytes budget is spent. */
static char *intern(struct dump *d, const char *s)
{
	bool cut;
	size_t len = kept_len(s, &cut), hint;
	char buf[DUMP_NAME_MAX + 1];
	struct str_key k = { buf, len + (cut ? 3 : 0) };
	uint32_t e;

	memcpy(buf, s, len);
	if (cut)
		memcpy(buf + len, "...", 3);
	buf[k.len] = '\0';
	d->loss.names_cut += cut;
	e = hashidx_find(&d->idx, &str_ops, d, str_hash(buf, k.len), &k, &hint);
	if (e != HASHIDX_NONE)
		return d->strs[e];
	if (d->str_bytes + k.len + 1 > DUMP_BYTES_MAX)
		return NULL;
	if (d->nstrs == d->capstrs) {
		d->capstrs = d->capstrs ? 2 * d->capstrs : 256;
		d->strs = xrealloc(d->strs, d->capstrs * sizeof(*d->strs));
	}
	d->strs[d->nstrs] = xstrdup(buf);
	hashidx_add(&d->idx, hint, d->nstrs);
	d->str_bytes += k.len + 1;
	return d->strs[d->nstrs++];
}

/* Whether one more frame or local fits, with its strings (NULL when not). */
static bool room_for(struct dump *d, const char *a, const char *b, char **ia, char **ib)
{
	*ia = *ib = NULL;
	if (d->items >= DUMP_FRAMES_MAX || !(*ia = intern(d, a)) || (b && !(*ib = intern(d, b)))) {
		d->loss.frames_dropped++;
		return false;
	}
	d->items++;
	return true;
}

struct dump_frame *dump_add_frame(struct dump *d, struct dump_thread *t, const char *func,
				  const char *chunk, int line, int firstline)
{
	struct dump_frame *f;
	char *ifunc, *ichunk;

	if (!room_for(d, func, chunk, &ifunc, &ichunk)) {
		t->cut = true;
		return NULL;
	}
	if (t->nframes == t->capframes) {	/* doubling: no copy per frame */
		t->capframes = t->capframes ? 2 * t->capframes : 8;
		t->frames = xrealloc(t->frames, t->capframes * sizeof(*t->frames));
	}
	f = &t->frames[t->nframes++];
	memset(f, 0, sizeof(*f));
	f->func = ifunc;
	f->chunk = ichunk;
	f->line = line;
	f->firstline = firstline;
	return f;
}

void dump_add_local(struct dump *d, struct dump_frame *f, const char *name, const char *value)
{
	char *iname, *ivalue;

	if (!f || !room_for(d, name, value, &iname, &ivalue))
		return;
	if (f->nlocals == f->caplocals) {
		f->caplocals = f->caplocals ? 2 * f->caplocals : 4;
		f->locals = xrealloc(f->locals, f->caplocals * sizeof(*f->locals));
	}
	f->locals[f->nlocals].name = iname;
	f->locals[f->nlocals].value = ivalue;
	f->nlocals++;
}

struct dump_request *dump_set_request(struct dump_thread *t, const char *kind, const char *phase,
				      uint64_t r, int64_t age_ms)
{
	struct dump_request *q = xcalloc(1, sizeof(*q));

	q->kind = kind;
	q->phase = phase;
	q->r = r;
	q->age_ms = age_ms;
	t->req = q;
	return q;
}

void dump_request_names(struct dump_request *q, const char *method, const char *uri,
			const char *host, const char *server, const char *location)
{
	q->method = xstrdup(method);
	q->uri = xstrdup(uri);
	q->host = xstrdup(host);
	q->server = xstrdup(server);
	q->location = xstrdup(location);
}

static void request_free(struct dump_request *q)
{
	if (!q)
		return;
	free(q->method);
	free(q->uri);
	free(q->host);
	free(q->server);
	free(q->location);
	free(q);
}

/* Lower ranks print first. */
static int rank(const struct dump_thread *t)
{
	static const char *const order[] = { "running", "idle", "normal", "suspended", "dead" };

	if (t->current && !strcmp(t->status, "running"))
		return 0;
	if (t->main)
		return 1;
	for (int i = 2; i < (int)(sizeof(order) / sizeof(order[0])); i++)
		if (!strcmp(t->status, order[i]))
			return i;
	return 9;
}

static int thread_cmp(const void *a, const void *b)
{
	const struct dump_thread *x = a, *y = b;
	int rx = rank(x), ry = rank(y);

	if (rx != ry)
		return rx - ry;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

void dump_sort(struct dump *d)
{
	if (d->n > 1)
		qsort(d->threads, d->n, sizeof(*d->threads), thread_cmp);
}

/* Requests by age, oldest first; a request's threads together, its entry
 * coroutine first. */
static int age_cmp(const void *a, const void *b)
{
	const struct dump_thread *x = a, *y = b;
	const struct dump_request *p = x->req, *q = y->req;
	int64_t ax, ay;

	if (!p || !q)
		return p ? -1 : q ? 1 : thread_cmp(a, b);
	ax = p->age_ms, ay = q->age_ms;
	if (ax != ay)
		return ax > ay ? -1 : 1;
	if (p->r != q->r)
		return p->r < q->r ? -1 : 1;
	if (strcmp(p->kind, q->kind))
		return !strcmp(p->kind, "request") ? -1 : !strcmp(q->kind, "request") ? 1 : 0;
	return thread_cmp(a, b);
}

void dump_sort_age(struct dump *d)
{
	if (d->n > 1)
		qsort(d->threads, d->n, sizeof(*d->threads), age_cmp);
}

void dump_free(struct dump *d)
{
	for (size_t i = 0; i < d->n; i++) {
		struct dump_thread *t = &d->threads[i];

		for (size_t j = 0; j < t->nframes; j++)
			free(t->frames[j].locals);
		free(t->frames);
		request_free(t->req);
	}
	free(d->threads);
	free(d->requests_refused);
	for (uint32_t i = 0; i < d->nstrs; i++)
		free(d->strs[i]);
	free(d->strs);
	hashidx_free(&d->idx);
	memset(d, 0, sizeof(*d));
}
