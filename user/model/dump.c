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

struct dump_frame *dump_add_frame(struct dump_thread *t, const char *func, const char *chunk,
				  int line, int firstline)
{
	struct dump_frame *f;

	t->frames = xrealloc(t->frames, (t->nframes + 1) * sizeof(*t->frames));
	f = &t->frames[t->nframes++];
	memset(f, 0, sizeof(*f));
	f->func = xstrdup(func);
	f->chunk = chunk ? xstrdup(chunk) : NULL;
	f->line = line;
	f->firstline = firstline;
	return f;
}

void dump_add_local(struct dump_frame *f, const char *name, const char *value)
{
	f->locals = xrealloc(f->locals, (f->nlocals + 1) * sizeof(*f->locals));
	f->locals[f->nlocals].name = xstrdup(name);
	f->locals[f->nlocals].value = xstrdup(value);
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

		for (size_t j = 0; j < t->nframes; j++) {
			struct dump_frame *f = &t->frames[j];

			for (size_t k = 0; k < f->nlocals; k++) {
				free(f->locals[k].name);
				free(f->locals[k].value);
			}
			free(f->locals);
			free(f->func);
			free(f->chunk);
		}
		free(t->frames);
		request_free(t->req);
	}
	free(d->threads);
	free(d->requests_refused);
	memset(d, 0, sizeof(*d));
}
