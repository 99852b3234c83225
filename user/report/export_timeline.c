// SPDX-License-Identifier: MIT
/* Timeline exports: the profile's timeline (model/timeline.h) as Chrome
 * trace events (what Perfetto and chrome://tracing open) and as
 * speedscope's evented profiles, one track per thread.  Each event's
 * stack becomes a span of time (a cpu-clock sample the period before it,
 * an off-CPU block its length); timeline_slices.c nests them into
 * slices.  Times are microseconds since the profile's start (origin_ns,
 * CLOCK_MONOTONIC, written in each file). */
#include "report/export.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "model/timeline.h"
#include "report/export_stack.h"
#include "report/speedscope_frames.h"
#include "report/timeline_slices.h"

/* One thread's spans, in time order. */
struct tl_thread {
	uint32_t pid, tid;
	const struct tl_span *spans;
	size_t n;
};

struct tl_build {
	struct ss_frames *frames;
	uint32_t **stacks;		/* by sample class: its frame indexes, once */
	uint32_t *nstack;
	struct tl_span *spans;
	struct tl_thread *threads;
	size_t nthreads;
	uint64_t origin_ns, join_ns;
};

static uint64_t period_ns(const struct profile *p)
{
	return p->hz ? 1000000000ull / p->hz : p->timeline->slot_ns;
}

/* The time an event stands for.  A cpu-clock sample ends the period it
 * weighs (its time slot's middle stands for its instant); an off-CPU block
 * starts when the thread left the CPU and lasts its weight; an allocation
 * sample is an instant, one slot wide. */
static void span_of(const struct profile *p, const struct timeline_event *e,
		    struct tl_span *sp)
{
	const struct sample *s = &p->samples[e->sample];
	uint64_t dur;

	if (s->flags & PSAMPLE_OFFCPU) {
		sp->start = e->time_ns;
		sp->end = e->time_ns + (e->weight ? e->weight : 1);
		return;
	}
	if (p->event == PROFILE_ALLOC) {
		sp->start = e->time_ns;
		sp->end = e->time_ns + p->timeline->slot_ns;
		return;
	}
	dur = profile_unit_ns(p) ? e->weight : e->weight * period_ns(p);
	sp->end = e->time_ns;
	sp->start = e->time_ns > dur ? e->time_ns - dur : 0;
}

static const uint32_t *class_stack(struct tl_build *b, const struct profile *p,
				   const struct export_opts *o, uint32_t cls, uint32_t *n)
{
	const uint32_t *st;

	if (!b->stacks[cls]) {
		st = ss_frames_stack(b->frames, p, &p->samples[cls], o, n);
		if (!st || !(b->stacks[cls] = malloc((*n + 1) * sizeof(*st))))
			return NULL;
		memcpy(b->stacks[cls], st, *n * sizeof(*st));
		b->nstack[cls] = *n;
	}
	*n = b->nstack[cls];
	return b->stacks[cls];
}

/* Every event's span and stack, grouped by thread; every frame interned. */
static int tl_build(struct tl_build *b, const struct profile *p, const struct export_opts *o)
{
	size_t n = p->timeline ? p->timeline->n : 0;
	struct timeline_event *ev = timeline_sorted(p);
	int rc = -1;

	memset(b, 0, sizeof(*b));
	b->frames = ss_frames_new();
	b->stacks = calloc(p->nsamples + 1, sizeof(*b->stacks));
	b->nstack = calloc(p->nsamples + 1, sizeof(*b->nstack));
	b->spans = calloc(n + 1, sizeof(*b->spans));
	b->threads = calloc(n + 1, sizeof(*b->threads));
	if (!b->frames || !b->stacks || !b->nstack || !b->spans || !b->threads || (n && !ev))
		goto out;
	if (p->timeline) {
		b->origin_ns = p->timeline->origin_ns;
		/* Samples a period apart (within the jitter, collector_jitter.c)
		 * are one run, and so are those a missed sample apart: a thread
		 * preempted in a function was still in it.  A longer gap means
		 * it ran nothing we saw (it slept, or ran outside Lua unsampled). */
		b->join_ns = period_ns(p);
	}
	for (size_t i = 0; i < n; i++) {
		const struct sample *s = &p->samples[ev[i].sample];
		struct tl_span *sp = &b->spans[i];
		struct tl_thread *th = b->nthreads ? &b->threads[b->nthreads - 1] : NULL;

		span_of(p, &ev[i], sp);
		if (!(sp->frames = class_stack(b, p, o, ev[i].sample, &sp->nframes)))
			goto out;
		if (!th || th->pid != s->pid || th->tid != s->tid) {
			th = &b->threads[b->nthreads++];
			*th = (struct tl_thread){ s->pid, s->tid, sp, 0 };
		}
		th->n++;
	}
	rc = 0;
out:
	free(ev);
	if (rc)
		errno = ENOMEM;
	return rc;
}

static void tl_free(struct tl_build *b, const struct profile *p)
{
	for (size_t i = 0; b->stacks && i <= p->nsamples; i++)
		free(b->stacks[i]);
	free(b->stacks);
	free(b->nstack);
	free(b->spans);
	free(b->threads);
	ss_frames_free(b->frames);
}

/* Microseconds since the origin, to the nanosecond. */
static void put_us(struct strbuf *sb, uint64_t t, uint64_t origin)
{
	uint64_t rel = t > origin ? t - origin : 0;

	sb_printf(sb, "%llu.%03llu", (unsigned long long)(rel / 1000),
		  (unsigned long long)(rel % 1000));
}

static const char *thread_name(const struct profile *p, const struct tl_thread *th)
{
	const char *name = timeline_thread_name(p->timeline, th->pid, th->tid);

	return name && strcmp(name, "?") ? name : profile_comm(p, th->pid);
}

/* What both formats record of the run: the clock and origin their times
 * count from, and the timeline's bound and losses. */
static void put_origin(struct strbuf *sb, const struct profile *p)
{
	const struct timeline *tl = p->timeline;

	sb_printf(sb, "{\"clock\":\"CLOCK_MONOTONIC\",\"origin_ns\":%llu,"
		  "\"time_unit\":\"microseconds since origin_ns\",\"resolution_ns\":%llu,"
		  "\"event\":\"%s\",\"hz\":%u,\"start_realtime_ns\":%llu,"
		  "\"events\":%zu,\"events_max\":%zu,\"events_dropped\":%llu}",
		  (unsigned long long)(tl ? tl->origin_ns : 0),
		  (unsigned long long)(tl ? tl->slot_ns : 0), profile_event_name(p->event), p->hz,
		  (unsigned long long)p->start_ns, tl ? tl->n : 0, tl ? tl->max_events : 0,
		  (unsigned long long)(tl ? tl->dropped : 0));
}

/* ---- Chrome trace events ------------------------------------------------- */

struct chrome_out {
	struct strbuf *sb;
	const struct tl_build *b;
	const struct tl_thread *th;
};

static void chrome_event(struct chrome_out *c, char ph, uint32_t frame, uint64_t t)
{
	sb_printf(c->sb, ",\n{\"ph\":\"%c\",\"pid\":%u,\"tid\":%u,\"ts\":", ph, c->th->pid,
		  c->th->tid);
	put_us(c->sb, t, c->b->origin_ns);
	/* speedscope matches an E to its B by name: both carry it. */
	sb_puts(c->sb, ",\"cat\":\"lua\",\"name\":");
	json_put_cstr(c->sb, ss_frames_name(c->b->frames, frame));
	sb_putc(c->sb, '}');
}

static void chrome_open(void *ctx, uint32_t frame, uint64_t t)
{
	chrome_event(ctx, 'B', frame, t);
}

static void chrome_close(void *ctx, uint32_t frame, uint64_t t)
{
	chrome_event(ctx, 'E', frame, t);
}

static void chrome_names(struct strbuf *sb, const struct profile *p, const struct tl_build *b)
{
	uint32_t last_pid = 0;

	/* The first event opens the array: the clock's origin, which
	 * also keeps an empty trace a valid one. */
	sb_puts(sb, "{\"ph\":\"M\",\"pid\":0,\"tid\":0,\"name\":\"luabpfprof_origin\",\"args\":");
	put_origin(sb, p);
	sb_putc(sb, '}');
	for (size_t i = 0; i < b->nthreads; i++) {
		const struct tl_thread *th = &b->threads[i];

		if (!i || th->pid != last_pid) {
			sb_printf(sb, ",\n{\"ph\":\"M\",\"pid\":%u,\"tid\":%u,"
				  "\"name\":\"process_name\",\"args\":{\"name\":", th->pid, th->pid);
			json_put_cstr(sb, profile_comm(p, th->pid));
			sb_puts(sb, "}}");
			last_pid = th->pid;
		}
		sb_printf(sb, ",\n{\"ph\":\"M\",\"pid\":%u,\"tid\":%u,"
			  "\"name\":\"thread_name\",\"args\":{\"name\":", th->pid, th->tid);
		json_put_cstr(sb, thread_name(p, th));
		sb_puts(sb, "}}");
	}
}

/* Writes the file body() puts into a buffer from the built timeline. */
typedef void (*tl_body)(struct strbuf *sb, const struct profile *p, const struct tl_build *b,
			const struct export_opts *o);

static int export_with(FILE *out, const struct profile *p, const struct export_opts *opts,
		       tl_body body)
{
	struct export_opts o;
	struct strbuf sb = STRBUF_INIT;
	struct tl_build b;
	int err = -1;

	if (export_opts_norm(&o, opts))
		return -1;
	if (!tl_build(&b, p, &o)) {
		body(&sb, p, &b, &o);
		fwrite(sb_str(&sb), 1, sb.len, out);
		err = export_finish(out);
	}
	tl_free(&b, p);
	sb_free(&sb);
	return err;
}

static void chrome_body(struct strbuf *sb, const struct profile *p, const struct tl_build *b,
			const struct export_opts *o)
{
	(void)o;
	sb_puts(sb, "{\"traceEvents\":[\n");
	chrome_names(sb, p, b);
	for (size_t i = 0; i < b->nthreads; i++) {
		struct chrome_out c = { sb, b, &b->threads[i] };
		struct tl_sink sink = { &c, chrome_open, chrome_close };

		tl_slice(b->threads[i].spans, b->threads[i].n, b->join_ns, &sink);
	}
	sb_puts(sb, "],\n\"displayTimeUnit\":\"ms\",\"otherData\":");
	put_origin(sb, p);
	sb_puts(sb, "}\n");
}

int export_chrome(FILE *out, const struct profile *p, const struct export_opts *opts)
{
	return export_with(out, p, opts, chrome_body);
}

/* ---- speedscope evented profiles ----------------------------------------- */

struct evented_out {
	struct strbuf *sb;
	uint64_t origin_ns;
	bool first;
};

static void evented_event(struct evented_out *e, char type, uint32_t frame, uint64_t t)
{
	sb_printf(e->sb, "%s{\"type\":\"%c\",\"frame\":%u,\"at\":", e->first ? "" : ",", type,
		  frame);
	put_us(e->sb, t, e->origin_ns);
	sb_putc(e->sb, '}');
	e->first = false;
}

static void evented_open(void *ctx, uint32_t frame, uint64_t t)
{
	evented_event(ctx, 'O', frame, t);
}

static void evented_close(void *ctx, uint32_t frame, uint64_t t)
{
	evented_event(ctx, 'C', frame, t);
}

static void evented_profile(struct strbuf *sb, const struct profile *p,
			    const struct tl_build *b, const struct tl_thread *th)
{
	struct strbuf name = STRBUF_INIT;
	struct evented_out e = { sb, b->origin_ns, true };
	struct tl_sink sink = { &e, evented_open, evented_close };
	uint64_t end;

	sb_printf(&name, "%s (pid %u, tid %u)", thread_name(p, th), th->pid, th->tid);
	sb_puts(sb, "\n{\"type\":\"evented\",\"name\":");
	json_put_string(sb, sb_str(&name), name.len);
	sb_puts(sb, ",\"unit\":\"microseconds\",\"startValue\":0,\"events\":[");
	end = tl_slice(th->spans, th->n, b->join_ns, &sink);
	sb_puts(sb, "],\"endValue\":");
	put_us(sb, end, b->origin_ns);
	sb_putc(sb, '}');
	sb_free(&name);
}

static void evented_body(struct strbuf *sb, const struct profile *p, const struct tl_build *b,
			 const struct export_opts *o)
{
	speedscope_head(sb, o, b->frames);
	for (size_t i = 0; i < b->nthreads; i++) {
		if (i)
			sb_putc(sb, ',');
		evented_profile(sb, p, b, &b->threads[i]);
	}
	/* An empty timeline still opens: one thread with no events. */
	if (!b->nthreads)
		sb_puts(sb, "\n{\"type\":\"evented\",\"name\":\"no samples\",\"unit\":\"microseconds\","
			"\"startValue\":0,\"endValue\":0,\"events\":[]}");
	sb_puts(sb, "],\n\"luabpfprof\":");
	put_origin(sb, p);
	sb_puts(sb, "}\n");
}

int export_speedscope_evented(FILE *out, const struct profile *p, const struct export_opts *opts)
{
	return export_with(out, p, opts, evented_body);
}
