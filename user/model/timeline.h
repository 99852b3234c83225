/* SPDX-License-Identifier: MIT */
/* The timeline: each sample's time and thread, kept beside the merged
 * profile for the formats that show when things ran (Chrome trace events,
 * speedscope's evented profiles).  Only a profile that asked for one has
 * it (profile_keep_timeline); the aggregate views never read it.
 *
 * Events are bounded: past max_events each new one is dropped and counted
 * (dropped; cli/main.c shows it after the summary line), so a long run
 * costs at most max_events * sizeof(struct timeline_event) bytes. */
#ifndef LBP_TIMELINE_H
#define LBP_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/strbuf.h"
#include "model/profile.h"

/* One sample, or off-CPU block, in time.  Its pid, tid, stack and flags
 * are those of its sample class, p->samples[sample]. */
struct timeline_event {
	uint64_t time_ns;	/* CLOCK_MONOTONIC, the middle of its time slot */
	uint64_t weight;	/* as the class's count: samples, or nanoseconds */
	uint32_t sample;	/* index into p->samples */
};

struct timeline_thread {
	uint32_t pid, tid;
	const char *name;	/* interned by the profile; NULL: unknown */
	uint64_t named_ns;	/* the sample time it was read at */
};

struct timeline {
	uint64_t origin_ns;	/* CLOCK_MONOTONIC when the profile started */
	uint64_t slot_ns;	/* the kernel's time slot: times are this precise */
	size_t max_events;
	uint64_t dropped;	/* events past max_events */
	struct timeline_event *ev;
	size_t n, cap;
	struct timeline_thread *threads;
	size_t nthreads, threads_cap;
};

/* The timeline formats' time slot: each sample's time is known to 1 ms
 * (the kernel merges equal samples of a thread within one slot). */
#define TIMELINE_SLOT_NS	1000000ull

/* The default bound: 24 MiB of events, 12 hours of one thread at 99 Hz. */
#define TIMELINE_MAX_EVENTS	(1u << 20)

/* Makes p keep a timeline from origin_ns (CLOCK_MONOTONIC). */
void profile_keep_timeline(struct profile *p, uint64_t origin_ns, uint64_t slot_ns,
			   size_t max_events);

/* Records weight of p->samples[sample] at time_ns, or counts it dropped. */
void timeline_add(struct profile *p, uint32_t sample, uint64_t time_ns, uint64_t weight);

/* The thread's name as recorded, NULL when none was. */
const char *timeline_thread_name(const struct timeline *tl, uint32_t pid, uint32_t tid);

/* Whether the thread's name is worth reading again at a sample of time_ns:
 * never read, or read over a second earlier.  Threads rename themselves
 * (prctl) after they start: the last name read wins. */
bool timeline_wants_name(const struct timeline *tl, uint32_t pid, uint32_t tid,
			 uint64_t time_ns);

/* Records the name read at time_ns; "?" (the thread is gone) keeps a
 * name read before. */
void timeline_set_thread_name(struct profile *p, uint32_t pid, uint32_t tid, const char *name,
			      uint64_t time_ns);

/* A copy of p's events sorted by thread (pid, tid), then time; malloc'd,
 * NULL when there are none (or no memory). */
struct timeline_event *timeline_sorted(const struct profile *p);

/* Bytes the timeline holds. */
size_t timeline_bytes(const struct timeline *tl);

/* "luabpfprof: timeline: N events of T threads (M MiB), D dropped past
 * the bound of B", without the newline. */
void timeline_summary(const struct timeline *tl, struct strbuf *out);

void timeline_free(struct timeline *tl);

#endif
