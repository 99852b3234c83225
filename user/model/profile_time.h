/* SPDX-License-Identifier: MIT */
/* Where the time went in an off-CPU or wall profile: on the CPU (running
 * Lua or only host C), blocked, or runnable but waiting for a CPU.  The
 * summary line reads like ujit.iprof's:
 * "wall 10.0 s = on-CPU 6.1 s (Lua 5.8 s, host C 0.3 s) + blocked 3.7 s
 *  + waiting for a CPU 0.2 s". */
#ifndef LBP_PROFILE_TIME_H
#define LBP_PROFILE_TIME_H

#include <stdbool.h>
#include <stdint.h>

#include "base/strbuf.h"
#include "model/profile.h"

struct time_split {
	uint64_t lua_ns, host_ns;	/* on the CPU */
	uint64_t blocked_ns, waiting_ns;	/* off it */
	uint64_t switches;		/* switches out weighed */
	bool all;			/* the whole profile: the counters apply */
};

/* The split of the samples of thread tid of pid (tid 0: every thread of
 * pid; pid 0: every sample).  Meaningful when profile_unit_ns(p). */
void profile_time_split(const struct profile *p, uint32_t pid, uint32_t tid,
			struct time_split *out);

/* The summary line, without a newline: the wall form above, or for an
 * off-CPU profile "off-cpu 3.9 s = blocked 3.7 s + waiting for a CPU
 * 0.2 s, N switches out". */
void profile_time_summary(const struct profile *p, const struct time_split *t,
			  struct strbuf *out);

/* -e alloc's summary line: the bytes the samples stand for, and when the
 * probe was attached for windows, the share of the time they covered. */
void profile_alloc_summary(const struct profile *p, struct strbuf *out);

#endif
