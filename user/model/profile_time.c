// SPDX-License-Identifier: MIT
/* Where the time went in an off-CPU or wall profile (profile_time.h). */
#include "model/profile_time.h"

#include <stdio.h>
#include <string.h>

void profile_time_split(const struct profile *p, uint32_t pid, uint32_t tid,
			struct time_split *out)
{
	memset(out, 0, sizeof(*out));
	out->all = !pid;
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct sample *s = &p->samples[i];

		if ((pid && s->pid != pid) || (tid && s->tid != tid))
			continue;
		if (s->flags & PSAMPLE_OFFCPU) {
			out->switches += s->events;
			if (s->flags & PSAMPLE_WAITING)
				out->waiting_ns += s->count;
			else
				out->blocked_ns += s->count;
		} else if (s->flags & PSAMPLE_HOST) {
			out->host_ns += s->count;
		} else {
			out->lua_ns += s->count;
		}
	}
}

static const char *rate_name(double rate, char *buf, size_t len)
{
	if (!(rate > 0))
		return "auto";
	snprintf(buf, len, "%g", rate);
	return buf;
}

void profile_time_summary(const struct profile *p, const struct time_split *t,
			  struct strbuf *out)
{
	char rate[32];
	double on = (double)(t->lua_ns + t->host_ns) / 1e9;
	double off = (double)(t->blocked_ns + t->waiting_ns) / 1e9;

	if (p->event == PROFILE_WALL)
		sb_printf(out, "wall %.2f s = on-CPU %.2f s (Lua %.2f s, host C %.2f s) + ",
			  on + off, on, (double)t->lua_ns / 1e9, (double)t->host_ns / 1e9);
	else
		sb_printf(out, "off-cpu %.2f s = ", off);
	sb_printf(out, "blocked %.2f s + waiting for a CPU %.2f s, %llu switches out",
		  (double)t->blocked_ns / 1e9, (double)t->waiting_ns / 1e9,
		  (unsigned long long)t->switches);
	/* The kernel's counters are per profile, not per thread. */
	if (t->all && p->offcpu_rate < 1)
		sb_printf(out, " (--off-cpu-rate %s: %llu of %llu seen walked%s)",
			  rate_name(p->offcpu_rate, rate, sizeof(rate)),
			  (unsigned long long)p->stats.switch_kept,
			  (unsigned long long)p->stats.switch_out,
			  p->stats.switch_kept < p->stats.switch_out ?
			  ", each weighed by 1/its rate: an estimate" : "");
	if (t->all)
		sb_printf(out, " (%llu under --min-block, %llu lost: parked map full, "
			  "%llu lost: switch-in unseen)",
			  (unsigned long long)p->stats.short_block,
			  (unsigned long long)p->stats.park_full,
			  (unsigned long long)p->stats.park_stale);
}

void profile_alloc_summary(const struct profile *p, struct strbuf *out)
{
	sb_printf(out, "luabpfprof: -e alloc: %.1f MiB allocated, sampled (%llu samples, "
		  "one per %llu KiB)", (double)p->total * (double)profile_alloc_bytes(p) / 1048576.0,
		  (unsigned long long)p->total, (unsigned long long)p->alloc_every >> 10);
	if (p->alloc_duty > 0 && p->alloc_duty < 1)
		sb_printf(out, " while the probe was attached, %.1f%% of the time: bytes "
			  "estimated from that share (--alloc-exact probes all of it)",
			  100 * p->alloc_duty);
}
