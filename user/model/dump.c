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
	}
	free(d->threads);
	memset(d, 0, sizeof(*d));
}
