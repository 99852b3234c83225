// SPDX-License-Identifier: MIT
/* Stack sampling as a kind of session work: the BPF collector walks LuaJIT
 * stacks at the configured cpu-clock rate, for off-CPU and wall profiles
 * (-e) each time a target's thread leaves the CPU, and for -e alloc once
 * per alloc_every bytes a thread allocates (the allocator uprobe); the
 * drain symbolizes them into the profile in progress.  One collector
 * serves every event so that a wall profile's two halves share one stack
 * map and one set of counters. */
#include "session/work.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/hashfn.h"
#include "sample/alloc_gate.h"
#include "sample/collector.h"
#include "sample/drain.h"
#include "sample/targets.h"
#include "session/session.h"

struct cpu_work {
	struct collector *col;
	struct drain *drain;
	/* -e alloc's duty cycle: the gate's schedule, a timer at its next
	 * change, and one descriptor for the loop to wait on, readable when
	 * the timer fires or prototypes are announced. */
	bool gated;
	struct alloc_gate gate;
	int timer_fd, wait_fd;
};

static void arm_gate_timer(struct cpu_work *cw)
{
	struct itimerspec at = {
		.it_value = { (time_t)(cw->gate.due_ns / 1000000000ull),
			      (long)(cw->gate.due_ns % 1000000000ull) },
	};

	timerfd_settime(cw->timer_fd, TFD_TIMER_ABSTIME, &at, NULL);
}

/* Opens or closes the allocator probes when the gate's time has come. */
static void serve_gate(struct cpu_work *cw)
{
	uint64_t expirations, at;

	if (!cw->gated)
		return;
	if (read(cw->timer_fd, &expirations, sizeof(expirations)) < 0) {
		/* Not fired yet: nothing to read (the descriptor is non-blocking). */
	}
	if (clock_ns(CLOCK_MONOTONIC) < cw->gate.due_ns)
		return;
	at = collector_alloc_gate(cw->col, !cw->gate.on);
	alloc_gate_changed(&cw->gate, !cw->gate.on, at, collector_alloc_sites(cw->col) > 0);
	arm_gate_timer(cw);
}

static int open_gate(struct cpu_work *cw, double duty, char *err, size_t errlen)
{
	struct epoll_event ev = { .events = EPOLLIN };
	uint64_t now = clock_ns(CLOCK_MONOTONIC);
	int news = collector_news_fd(cw->col);

	cw->gated = true;
	alloc_gate_init(&cw->gate, duty, hash_u64(now, (uint64_t)getpid()), now);
	cw->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	cw->wait_fd = epoll_create1(EPOLL_CLOEXEC);
	if (cw->timer_fd < 0 || cw->wait_fd < 0 ||
	    epoll_ctl(cw->wait_fd, EPOLL_CTL_ADD, cw->timer_fd, &ev) ||
	    (news >= 0 && epoll_ctl(cw->wait_fd, EPOLL_CTL_ADD, news, &ev))) {
		snprintf(err, errlen, "the allocation probe's timer: %s", strerror(errno));
		return -1;
	}
	arm_gate_timer(cw);
	return 0;
}

static int cpu_open(struct work *w, const struct session_config *c, struct targets *ts,
		    char *err, size_t errlen)
{
	bool gated = c->alloc_every && c->alloc_duty > 0 && c->alloc_duty < 1;
	struct collector_opts co = {
		.hz = c->hz, .max_stacks = c->max_stacks, .max_counts = c->max_counts,
		.max_frames = c->max_frames,
		.offcpu = c->event == PROFILE_OFFCPU || c->event == PROFILE_WALL,
		.no_cpu_clock = c->event == PROFILE_OFFCPU, .min_block_ns = c->min_block_ns,
		.offcpu_rate = c->offcpu_rate,
		.alloc_every = c->alloc_every, .alloc_gated = gated, .native = c->native,
		.time_slot_ns = c->time_slot_ns,
	};
	struct cpu_work *cw = calloc(1, sizeof(*cw));

	struct drain_opts dopts = {
		.lua_only = c->lua_only, .keep_root = c->keep_root, .no_stitch = c->no_stitch,
		.native = c->native, .time_slot_ns = c->time_slot_ns,
		.uri_template = c->uri_template,
	};

	if (!cw || !(cw->drain = drain_new(&dopts))) {
		free(cw);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	w->state = cw;
	cw->timer_fd = cw->wait_fd = -1;
	cw->col = collector_open(&co, err, errlen);
	if (!cw->col || (gated && open_gate(cw, c->alloc_duty, err, errlen)))
		return -1;
	targets_attach(ts, cw->col);
	return 0;
}

static void cpu_drain(struct work *w, struct targets *ts, struct profile *into)
{
	struct cpu_work *cw = w->state;

	drain_news(cw->drain, ts, cw->col);
	drain_run(cw->drain, ts, cw->col, into);
	if (cw->gated) {
		alloc_gate_observe(&cw->gate, clock_ns(CLOCK_MONOTONIC),
				   collector_alloc_sites(cw->col) > 0);
		into->alloc_duty = alloc_gate_duty(&cw->gate);
	}
}

static void cpu_settle(struct work *w, struct targets *ts, struct profile *into)
{
	struct cpu_work *cw = w->state;

	/* The last drain: sampling stops first, or a sample taken between
	 * the drain and the counters' read would be counted, never shown. */
	collector_stop(cw->col);
	drain_run_parked(cw->drain, ts, cw->col, into);
}

/* Prototypes the walker met for the first time are read at once: code
 * loaded and collected between two drains is still named. */
static int cpu_fd(struct work *w)
{
	struct cpu_work *cw = w->state;

	return cw->gated ? cw->wait_fd : collector_news_fd(cw->col);
}

static void cpu_wake(struct work *w, struct targets *ts)
{
	struct cpu_work *cw = w->state;

	serve_gate(cw);
	drain_news(cw->drain, ts, cw->col);
}

static void cpu_tick(struct work *w, uint64_t now_ns)
{
	(void)now_ns;
	serve_gate(w->state);
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
	if (cw->timer_fd >= 0)
		close(cw->timer_fd);
	if (cw->wait_fd >= 0)
		close(cw->wait_fd);
	drain_free(cw->drain);
	free(cw);
	w->state = NULL;
}

static const struct work_kind cpu_sampling = {
	.name = "cpu",
	.open = cpu_open,
	.tick = cpu_tick,
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
