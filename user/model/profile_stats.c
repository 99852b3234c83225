// SPDX-License-Identifier: MIT
/* The loss and walker counters: every list of them is an expansion of
 * LBP_COUNTERS (bpf/sampler.h) and PROFILE_USER_STATS (profile_stats.h). */
#include "model/profile_stats.h"

void profile_stats_from_kernel(struct profile_stats *st, const uint64_t cnt[CNT__MAX])
{
#define COPY(name, field, group, lost, label) st->field = cnt[CNT_##name];
	LBP_COUNTERS(COPY)
#undef COPY
}

static uint64_t since(uint64_t cur, uint64_t prev)
{
	return cur >= prev ? cur - prev : 0;
}

void profile_stats_since(struct profile_stats *st, const struct profile_stats *prev)
{
#define KDELTA(name, field, group, lost, label) st->field = since(st->field, prev->field);
#define UDELTA(field, group, lost, label, total) \
	if (total) \
		st->field = since(st->field, prev->field);
	LBP_COUNTERS(KDELTA)
	PROFILE_USER_STATS(UDELTA)
#undef KDELTA
#undef UDELTA
}

uint64_t profile_stats_lost(const struct profile_stats *st)
{
	uint64_t n = 0;

#define KLOST(name, field, group, lost, label) n += lost ? st->field : 0;
#define ULOST(field, group, lost, label, total) n += lost ? st->field : 0;
	LBP_COUNTERS(KLOST)
	PROFILE_USER_STATS(ULOST)
#undef KLOST
#undef ULOST
	return n;
}

/* Appends "N label" for each counter that passes the filter, sep between. */

static void item(struct strbuf *out, const char **sep, uint64_t n, const char *label)
{
	sb_printf(out, "%s%llu %s", *sep, (unsigned long long)n, label);
	*sep = ", ";
}

void profile_stats_lost_list(const struct profile_stats *st, struct strbuf *out)
{
	const char *sep = "";

#define KITEM(name, field, group, lost, label) \
	if (lost) \
		item(out, &sep, st->field, label);
#define UITEM(field, group, lost, label, total) \
	if (lost) \
		item(out, &sep, st->field, label);
	LBP_COUNTERS(KITEM)
	PROFILE_USER_STATS(UITEM)
#undef KITEM
#undef UITEM
}

static void group_list(const struct profile_stats *st, int want, struct strbuf *out)
{
	const char *sep = "";

#define KGROUP(name, field, group, lost, label) \
	if (group == want) \
		item(out, &sep, st->field, label);
#define UGROUP(field, group, lost, label, total) \
	if (group == want) \
		item(out, &sep, st->field, label);
	LBP_COUNTERS(KGROUP)
	PROFILE_USER_STATS(UGROUP)
#undef KGROUP
#undef UGROUP
}

/* "N bad frame, ...; lost: N stack map full, ...". */
static void summary_tail(const struct profile_stats *st, struct strbuf *out)
{
	group_list(st, 1, out);
	sb_printf(out, "; lost: ");
	group_list(st, 2, out);
}

void profile_stats_summary(const struct profile_stats *st, double seconds, unsigned hz,
			   struct strbuf *out)
{
	if (hz)
		sb_printf(out, "luabpfprof: %llu samples in %.1f s at %u Hz (%llu outside Lua); unwind: ",
			  (unsigned long long)st->samples, seconds, hz, (unsigned long long)st->host);
	else	/* -e alloc: a walk per interval crossed, not per tick */
		sb_printf(out, "luabpfprof: %llu stacks walked in %.1f s (%llu outside Lua); unwind: ",
			  (unsigned long long)st->samples, seconds, (unsigned long long)st->host);
	summary_tail(st, out);
}

void profile_stats_summary_switches(const struct profile_stats *st, double seconds, unsigned hz,
				    struct strbuf *out)
{
	/* The kernel counts a walk without Lua as outside Lua whatever made
	 * it: a CPU sample or a switch out.  Off-CPU takes no CPU samples. */
	if (hz)
		sb_printf(out, "luabpfprof: %llu samples at %u Hz and %llu switches out walked",
			  (unsigned long long)st->samples, hz, (unsigned long long)st->switch_kept);
	else
		sb_printf(out, "luabpfprof: %llu switches out walked",
			  (unsigned long long)st->switch_kept);
	sb_printf(out, " in %.1f s (%llu outside Lua); unwind: ", seconds,
		  (unsigned long long)st->host);
	summary_tail(st, out);
}

void profile_stats_walk(const struct profile_stats *st, struct strbuf *out)
{
	sb_printf(out, "luabpfprof: walk: ");
	group_list(st, 3, out);
}
