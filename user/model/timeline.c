// SPDX-License-Identifier: MIT
/* The timeline kept beside a profile: bounded, its losses counted. */
#include "model/timeline.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

void profile_keep_timeline(struct profile *p, uint64_t origin_ns, uint64_t slot_ns,
			   size_t max_events)
{
	struct timeline *tl = xcalloc(1, sizeof(*tl));

	tl->origin_ns = origin_ns;
	tl->slot_ns = slot_ns;
	tl->max_events = max_events;
	timeline_free(p->timeline);
	p->timeline = tl;
}

void timeline_add(struct profile *p, uint32_t sample, uint64_t time_ns, uint64_t weight)
{
	struct timeline *tl = p->timeline;

	if (!tl)
		return;
	if (tl->n >= tl->max_events) {
		tl->dropped++;
		return;
	}
	if (tl->n == tl->cap) {
		size_t cap = tl->cap ? tl->cap * 2 : 1024;

		if (cap > tl->max_events)
			cap = tl->max_events;
		tl->ev = xrealloc(tl->ev, cap * sizeof(*tl->ev));
		tl->cap = cap;
	}
	tl->ev[tl->n++] = (struct timeline_event){ .time_ns = time_ns, .weight = weight,
						   .sample = sample };
}

static struct timeline_thread *thread_of(const struct timeline *tl, uint32_t pid, uint32_t tid)
{
	for (size_t i = 0; i < tl->nthreads; i++)
		if (tl->threads[i].tid == tid && tl->threads[i].pid == pid)
			return &tl->threads[i];
	return NULL;
}

const char *timeline_thread_name(const struct timeline *tl, uint32_t pid, uint32_t tid)
{
	const struct timeline_thread *t = tl ? thread_of(tl, pid, tid) : NULL;

	return t ? t->name : NULL;
}

bool timeline_wants_name(const struct timeline *tl, uint32_t pid, uint32_t tid,
			 uint64_t time_ns)
{
	const struct timeline_thread *t = tl ? thread_of(tl, pid, tid) : NULL;

	return tl && (!t || time_ns > t->named_ns + 1000000000ull);
}

void timeline_set_thread_name(struct profile *p, uint32_t pid, uint32_t tid, const char *name,
			      uint64_t time_ns)
{
	struct timeline *tl = p->timeline;
	struct timeline_thread *t;

	if (!tl)
		return;
	t = thread_of(tl, pid, tid);
	if (!t) {
		if (tl->nthreads == tl->threads_cap) {
			tl->threads_cap = tl->threads_cap ? tl->threads_cap * 2 : 16;
			tl->threads = xrealloc(tl->threads, tl->threads_cap * sizeof(*tl->threads));
		}
		t = &tl->threads[tl->nthreads++];
		*t = (struct timeline_thread){ .pid = pid, .tid = tid };
	}
	t->named_ns = time_ns;
	if (!t->name || strcmp(name, "?"))
		t->name = profile_str(p, name);
}

/* qsort has no context: the samples being sorted by. */
static const struct sample *sort_samples;

static int by_thread_time(const void *a, const void *b)
{
	const struct timeline_event *x = a, *y = b;
	const struct sample *sx = &sort_samples[x->sample], *sy = &sort_samples[y->sample];

	if (sx->pid != sy->pid)
		return sx->pid < sy->pid ? -1 : 1;
	if (sx->tid != sy->tid)
		return sx->tid < sy->tid ? -1 : 1;
	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return (x->sample > y->sample) - (x->sample < y->sample);
}

struct timeline_event *timeline_sorted(const struct profile *p)
{
	const struct timeline *tl = p->timeline;
	struct timeline_event *ev;

	if (!tl || !tl->n || !(ev = malloc(tl->n * sizeof(*ev))))
		return NULL;
	memcpy(ev, tl->ev, tl->n * sizeof(*ev));
	sort_samples = p->samples;
	qsort(ev, tl->n, sizeof(*ev), by_thread_time);
	sort_samples = NULL;
	return ev;
}

size_t timeline_bytes(const struct timeline *tl)
{
	return tl ? sizeof(*tl) + tl->cap * sizeof(*tl->ev) +
		    tl->threads_cap * sizeof(*tl->threads) : 0;
}

void timeline_summary(const struct timeline *tl, struct strbuf *out)
{
	sb_printf(out, "luabpfprof: timeline: %zu events of %zu thread%s (%.1f MiB), "
		  "%llu dropped past the bound of %zu", tl->n, tl->nthreads,
		  tl->nthreads == 1 ? "" : "s",
		  (double)timeline_bytes(tl) / 1048576.0, (unsigned long long)tl->dropped,
		  tl->max_events);
}

void timeline_free(struct timeline *tl)
{
	if (!tl)
		return;
	free(tl->ev);
	free(tl->threads);
	free(tl);
}
