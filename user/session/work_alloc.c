/* Allocation sampling as a kind of session work (-e alloc): the
 * collector's allocator uprobe walks the Lua stack once per alloc_every
 * bytes a thread allocates (bpf/alloc.bpf.h); the drain symbolizes those
 * stacks as it does CPU samples.  A sample's count is a number of
 * intervals: reports multiply by profile.alloc_every. */
#include "session/work.h"

#include <stdio.h>
#include <stdlib.h>

#include "sample/collector.h"
#include "sample/drain.h"
#include "sample/targets.h"
#include "session/session.h"

struct alloc_work {
	struct collector *col;
	struct drain *drain;
};

static bool alloc_wanted(const struct session_config *c)
{
	return c->alloc_every != 0;
}

static int alloc_open(struct work *w, const struct session_config *c, struct targets *ts,
		      char *err, size_t errlen)
{
	struct collector_opts co = { .hz = c->hz, .max_stacks = c->max_stacks,
				     .max_counts = c->max_counts, .max_frames = c->max_frames,
				     .alloc_every = c->alloc_every };
	struct drain_opts dopts = {
		.lua_only = c->lua_only, .keep_root = c->keep_root, .no_stitch = c->no_stitch,
	};
	struct alloc_work *aw = calloc(1, sizeof(*aw));

	if (!aw || !(aw->drain = drain_new(&dopts))) {
		free(aw);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	w->state = aw;
	aw->col = collector_open(&co, err, errlen);
	if (!aw->col)
		return -1;
	/* Attaches the allocator probe of every target known now; targets
	 * found later get theirs when pushed to the kernel. */
	targets_attach(ts, aw->col);
	return 0;
}

static void alloc_drain(struct work *w, struct targets *ts, struct profile *into)
{
	struct alloc_work *aw = w->state;

	drain_run(aw->drain, ts, aw->col, into);
}

static void alloc_cost(struct work *w, uint64_t *run_ns, uint64_t *run_cnt)
{
	struct alloc_work *aw = w->state;

	collector_prog_stats(aw->col, run_ns, run_cnt);
}

static void alloc_close(struct work *w)
{
	struct alloc_work *aw = w->state;

	if (!aw)
		return;
	collector_close(aw->col);
	drain_free(aw->drain);
	free(aw);
	w->state = NULL;
}

const struct work_kind work_alloc_kind = {
	.name = "alloc",
	.wanted = alloc_wanted,
	.open = alloc_open,
	.drain = alloc_drain,
	.cost = alloc_cost,
	.close = alloc_close,
};
