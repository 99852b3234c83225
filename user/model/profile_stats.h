/* SPDX-License-Identifier: MIT */
/* Losses and walker statistics, reported with every profile.  The fields,
 * their copy from the kernel's counters, interval deltas, loss totals and
 * the summary line all come from two tables: LBP_COUNTERS (bpf/sampler.h,
 * counted in the kernel) and PROFILE_USER_STATS (counted here). */
#ifndef LBP_PROFILE_STATS_H
#define LBP_PROFILE_STATS_H

#include <stdint.h>

#include "base/sampler_types.h"
#include "base/strbuf.h"

/* Counters kept in user space.  Columns: field, summary group (as in
 * LBP_COUNTERS), whether it counts as a lost sample, summary label, and
 * whether it is a running total (cut into deltas per interval) rather
 * than counted per profile. */
#define PROFILE_USER_STATS(_) \
	_(stack_lost,  0, 0, "stack lost",     0)	/* count entries whose stack was gone */ \
	_(sym_unknown, 2, 0, "unknown frames", 1)	/* frames that failed symbolization */ \
	_(req_dropped, 3, 0, "request labels dropped", 0)	/* gone from the LRU, or failed a check */ \
	_(req_folded,  3, 0, "request URIs folded", 0)	/* --uri-template: ids folded to :id */

struct profile_stats {
#define PSTAT_KFIELD(name, field, group, lost, label) uint64_t field;
#define PSTAT_UFIELD(field, group, lost, label, total) uint64_t field;
	LBP_COUNTERS(PSTAT_KFIELD)
	PROFILE_USER_STATS(PSTAT_UFIELD)
#undef PSTAT_KFIELD
#undef PSTAT_UFIELD
};

/* Copies the kernel's (cumulative) counters into st. */
void profile_stats_from_kernel(struct profile_stats *st, const uint64_t cnt[CNT__MAX]);

/* Turns running totals into what happened since prev (the totals at the
 * last cut); per-profile counts are kept.  A total that went backwards
 * counts 0. */
void profile_stats_since(struct profile_stats *st, const struct profile_stats *prev);

/* Samples lost on the way (walk errors, full maps). */
uint64_t profile_stats_lost(const struct profile_stats *st);

/* "N bad frame, N read fault, ...": the lost-sample counters, one by one. */
void profile_stats_lost_list(const struct profile_stats *st, struct strbuf *out);

/* The end-of-run summary line, without the newline:
 * "luabpfprof: N samples in S s at H Hz (N outside Lua); unwind: ...; lost: ...". */
void profile_stats_summary(const struct profile_stats *st, double seconds, unsigned hz,
			   struct strbuf *out);

/* The same for -e off-cpu (hz 0) and -e wall, whose walks are switches
 * out and, for wall, CPU samples too: "luabpfprof: N samples at H Hz and
 * N switches out walked in S s (N outside Lua); unwind: ...". */
void profile_stats_summary_switches(const struct profile_stats *st, double seconds, unsigned hz,
				    struct strbuf *out);

/* -v's line on how the walks went, without the newline: "luabpfprof: walk:
 * N base from registers, ..., N cached reads". */
void profile_stats_walk(const struct profile_stats *st, struct strbuf *out);

#endif
