/* Stack sampling as a kind of session work: the BPF collector walks LuaJIT
 * stacks at the configured cpu-clock rate, for off-CPU and wall profiles
 * (-e) each time a target's thread leaves the CPU, and for -e alloc once
 * per alloc_every bytes a thread allocates (the allocator uprobe); the
 * drain symbolizes them into the profile in progress.  One collector
 * serves every event so that a wall profile's two halves share one stack
 * map and one set of counters. */
#include "session/work.h"

#include <stdlib.h>

#include "sample/collector.h"
#include "sample/drain.h"
#include "sample/targets.h"
#include "session/session.h"

struct cpu_work {
	struct collector *col;
	struct drain *drain;
};

static int cpu_open(struct work *w, const struct session_config *c, struct targets *ts,
		    char *err, size_t errlen)
{
	struct collector_opts co = {
		.hz = c->hz, .max_stacks = c->max_stacks, .max_counts = c->max_counts,
		.max_frames = c->max_frames,
		.offcpu = c->event == PROFILE_OFFCPU || c->event == PROFILE_WALL,
		.no_cpu_clock = c->event == PROFILE_OFFCPU, .min_block_ns = c->min_block_ns,
		.alloc_every = c->alloc_every, .native = c->native,
		.time_slot_ns = c->time_slot_ns,
	};
	struct cpu_work *cw = calloc(1, sizeof(*cw));

	struct drain_opts dopts = {
		.lua_only = c->lua_only, .keep_root = c->keep_root, .no_stitch = c->no_stitch,
		.native = c->native, .time_slot_ns = c->time_slot_ns,
	};

	if (!cw || !(cw->drain = drain_new(&dopts))) {
		free(cw);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	w->state = cw;
	cw->col = collector_open(&co, err, errlen);
	if (!cw->col)
		return -1;
	targets_attach(ts, cw->col);
	return 0;
}

static void cpu_drain(struct work *w, struct targets *ts, struct profile *into)
{
	struct cpu_work *cw = w->state;

	drain_news(cw->drain, ts, cw->col);
	drain_run(cw->drain, ts, cw->col, into);
}

static void cpu_settle(struct work *w, struct targets *ts, struct profile *into)
{
	struct cpu_work *cw = w->state;

	drain_run_parked(cw->drain, ts, cw->col, into);
}

/* Prototypes the walker met for the first time are read at once: code
 * loaded and collected between two drains is still named. */
static int cpu_fd(struct work *w)
{
	struct cpu_work *cw = w->state;

	return collector_news_fd(cw->col);
}

static void cpu_wake(struct work *w, struct targets *ts)
{
	struct cpu_work *cw = w->state;

	drain_news(cw->drain, ts, cw->col);
}

static void cpu_cost(struct work *w, uint64_t *run_ns, uint64_t *run_cnt)
{
	struct cpu_work *cw = w->state;

	collector_prog_stats(cw->col, run_ns, run_cnt);
}

static void cpu_close(struct work *w)
{
	struct cpu_work *cw = w->state;

	if (!cw)
		return;
	collector_close(cw->col);
	drain_free(cw->drain);
	free(cw);
	w->state = NULL;
}

static const struct work_kind cpu_sampling = {
	.name = "cpu",
	.open = cpu_open,
	.drain = cpu_drain,
	.settle = cpu_settle,
	.fd = cpu_fd,
	.wake = cpu_wake,
	.cost = cpu_cost,
	.close = cpu_close,
};

static const struct work_kind *const kinds[] = {
	&cpu_sampling,
	NULL,
};

const struct work_kind *const *work_kinds(void)
{
	return kinds;
}
