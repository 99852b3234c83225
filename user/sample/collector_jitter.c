// SPDX-License-Identifier: MIT
/* Sampling period jitter, without losing the time it restarts.
 *
 * A program with a fixed period (a game's time step, a busy-wait round)
 * can run in phase with a fixed sampling period, and then every sample
 * lands at the same point of its round.  So every JITTER_EVERY_NS the
 * CPUs' clocks get a new period, uniform within +-JITTER_PCT percent of
 * the nominal one (the mean rate stays -F).
 *
 * PERF_EVENT_IOC_PERIOD restarts a cpu-clock timer: its next tick comes a
 * whole new period after the ioctl, and the part of the period already
 * run is lost.  Done at an arbitrary moment that loses half a period on
 * average, and done more often than once a period (a drain every 4 ms
 * while a launched command is young, at 99 Hz) the timer never fires at
 * all.  So the clocks are restarted only right after a tick: all CPUs
 * share one period and were restarted together, so their ticks fall on
 * one grid (grid_ns + k * period, the earlier CPUs up to the restart's
 * spread before), which user space knows.  A drain that finds the next
 * tick close waits for it; one that finds it far leaves the jitter to a
 * later drain.
 *
 * The price is spread: a sample stands for a period drawn within +-10%, and
 * a burst the sampler cannot re-jitter during (a busy host) sees one draw.
 *
 * LUABPFPROF_NO_JITTER=1 turns this off, for tests only: t_aliasing shows
 * that its workload does alias without it; t_agent needs every sampler to
 * count the same ticks of the same bursts.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "base/clock.h"
#include "base/hashfn.h"
#include "sample/collector_int.h"

#define JITTER_PCT		10
#define JITTER_EVERY_NS		200000000ull	/* a new period this often */
#define JITTER_WAIT_MAX_NS	2000000ull	/* longest wait for a tick */
/* After the tick: hrtimers fire a little late, and a restart before the
 * tick would lose the whole period. */
#define JITTER_MARGIN_NS	150000ull
/* Restarted only if at most this much of a period has run since the tick
 * (the drain may have slept longer than asked). */
#define JITTER_LOSS_MAX_NS	400000ull

/* Every CPU's clock restarted with one period: their ticks on one grid. */
static void restart_all(struct collector *c, uint64_t period)
{
	for (int cpu = 0; cpu < c->ncpus; cpu++)
		if (c->pfds && c->pfds[cpu] > 0)
			ioctl(c->pfds[cpu], PERF_EVENT_IOC_PERIOD, &period);
	c->period_ns = period;
	/* The last restart's tick is the latest of all: wait for that one. */
	c->grid_ns = clock_ns(CLOCK_MONOTONIC);
	c->next_jitter_ns = c->grid_ns + JITTER_EVERY_NS;
}

void collector_jitter_start(struct collector *c)
{
	const char *off = getenv("LUABPFPROF_NO_JITTER");

	c->jitter_state = 0;
	if (!c->hz || !c->pfds || (off && *off && strcmp(off, "0")))
		return;
	c->jitter_state = hash_u64(clock_ns(CLOCK_MONOTONIC), (uint64_t)getpid()) | 1;
	/* Opened one after another, the clocks started at scattered times:
	 * put them on one grid (nothing is profiled yet). */
	restart_all(c, 1000000000ull / c->hz);
}

/* Nanoseconds since the grid's last tick. */
static uint64_t since_tick(const struct collector *c, uint64_t now)
{
	return now > c->grid_ns ? (now - c->grid_ns) % c->period_ns : 0;
}

void collector_jitter(struct collector *c)
{
	uint64_t nominal = 1000000000ull / (c->hz ? c->hz : 1), now, x, to_tick, margin;
	struct timespec until;

	if (!c->jitter_state || !c->period_ns)
		return;
	now = clock_ns(CLOCK_MONOTONIC);
	if (now < c->next_jitter_ns)
		return;
	to_tick = c->period_ns - since_tick(c, now);
	if (to_tick > JITTER_WAIT_MAX_NS)
		return;		/* a later drain will be nearer a tick */
	margin = JITTER_MARGIN_NS < c->period_ns / 4 ? JITTER_MARGIN_NS : c->period_ns / 4;
	now += to_tick + margin;
	until = (struct timespec){ (time_t)(now / 1000000000ull), (long)(now % 1000000000ull) };
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) > 0)
		;
	if (c->period_ns > JITTER_LOSS_MAX_NS &&
	    since_tick(c, clock_ns(CLOCK_MONOTONIC)) > JITTER_LOSS_MAX_NS)
		return;		/* overslept: the restart would lose too much */
	x = c->jitter_state;
	x ^= x << 13, x ^= x >> 7, x ^= x << 17;
	c->jitter_state = x;
	/* nominal * (1 + u), u uniform in [-J, +J] percent. */
	restart_all(c, nominal - nominal * JITTER_PCT / 100 +
			       (x >> 11) % (2 * nominal * JITTER_PCT / 100 + 1));
}
