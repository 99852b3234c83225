// SPDX-License-Identifier: MIT
/* Unit tests for the session loop with a kind of work that needs no BPF:
 * it "samples" a fixed count per drain.  Checks the cadence, the ends of
 * a run (duration, stop, command exit) and that intervals are back to
 * back, each sample in exactly one profile. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/unit.h"
#include "model/profile.h"
#include "sample/targets.h"
#include "sample/test_proc.h"
#include "session/session.h"
#include "session/work.h"

#define PER_DRAIN 3

static pid_t sleeper;
static uint64_t drained, opened, closed;

static int fake_open(struct work *w, const struct session_config *c, struct targets *ts,
		     char *err, size_t errlen)
{
	(void)w, (void)c, (void)ts, (void)err, (void)errlen;
	opened++;
	return 0;
}

static void fake_drain(struct work *w, struct targets *ts, struct profile *into)
{
	static const struct frame_sym *no_frames[1];
	struct sample s = { .pid = (uint32_t)sleeper, .tid = 1, .flags = PSAMPLE_HOST,
			    .frames = no_frames, .count = PER_DRAIN };

	(void)w, (void)ts;
	profile_add(into, &s);
	drained += PER_DRAIN;
	into->stats.samples = drained;	/* a running total, as the kernel's */
}

static void fake_close(struct work *w)
{
	(void)w;
	closed++;
}

static const struct work_kind fake = {
	.name = "fake", .open = fake_open, .drain = fake_drain, .close = fake_close,
};
static const struct work_kind *const fake_kinds[] = { &fake, NULL };

struct seen {
	int profiles, ticks, stop_after_ticks;
	double stop_after_s;		/* a run that fails to end stops anyway */
	uint64_t total, stat_samples;
	uint64_t last_end_ns;		/* start + duration of the last profile */
	int gaps;			/* profiles not starting where the last ended */
	int unnamed;
	int why;
	volatile sig_atomic_t *stop;
};

static void on_tick(void *ctx, struct session *s, const struct session_clock *c)
{
	struct seen *v = ctx;

	(void)s;
	if (++v->ticks == v->stop_after_ticks || (v->stop_after_s && c->elapsed_s > v->stop_after_s))
		*v->stop = 1;
}

static void on_ended(void *ctx, struct session *s, enum session_end why)
{
	struct seen *v = ctx;

	(void)s;
	v->why = (int)why;
}

static int on_finished(void *ctx, struct session *s, struct profile *p)
{
	struct seen *v = ctx;

	(void)s;
	if (v->profiles && p->start_ns != v->last_end_ns)
		v->gaps++;
	v->last_end_ns = p->start_ns + p->duration_ns;
	v->unnamed += strcmp(profile_comm(p, (uint32_t)sleeper), "sleep") != 0;
	v->profiles++;
	v->total += p->total;
	v->stat_samples += p->stats.samples;
	return 0;
}

static double run(double every, double duration, struct seen *v)
{
	static volatile sig_atomic_t stop;
	struct session_config c = {
		.hz = 99, .duration_s = duration, .every_s = every, .stop = &stop,
		.kinds = fake_kinds,
	};
	struct session_consumer sc = {
		.ctx = v, .tick = on_tick, .ended = on_ended, .finished = on_finished,
	};
	char err[256];
	struct session *s;
	uint64_t t0;

	stop = 0;
	v->stop = &stop;
	drained = 0;
	s = session_open(&c, err, sizeof(err));
	if (!s || session_add_command(s, sleeper, err, sizeof(err))) {
		printf("FAIL: session: %s\n", err);
		session_close(s);
		return -1;
	}
	t0 = clock_ns(CLOCK_MONOTONIC);
	session_run(s, &sc);
	if (v->why == SESSION_CHILD_EXITED)
		CHECK("session: the command's wait status",
		      WIFSIGNALED(session_child_status(s)) &&
		      WTERMSIG(session_child_status(s)) == SIGKILL);
	session_close(s);
	return (double)(clock_ns(CLOCK_MONOTONIC) - t0) / 1e9;
}

static void test_intervals(void)
{
	struct seen v = { .stop_after_s = 6 };
	double took = run(0.3, 1.0, &v);

	CHECK("intervals: -d ends the run", v.why == SESSION_DURATION && took >= 1.0 &&
	      took < 3.0);
	/* Cuts at 0.3, 0.6, 0.9 s and the last one at 1.0 s. */
	CHECK("intervals: one profile per interval, and the rest", v.profiles >= 3 &&
	      v.profiles <= 5);
	CHECK("intervals: back to back", v.gaps == 0);
	/* What was drained before the run (the first drain) is dropped. */
	CHECK("intervals: each sample in exactly one profile", v.total == drained - PER_DRAIN &&
	      drained > PER_DRAIN);
	CHECK("intervals: counters are each interval's share", v.stat_samples == v.total);
	CHECK("intervals: every profile names the target", v.unnamed == 0);
	/* The command is young all run long (its first second): drained every
	 * 4 ms, not 5 times a second, so that a short program's frames are
	 * named before its memory is gone. */
	CHECK("intervals: a young command drained every 4 ms",
	      drained / PER_DRAIN >= 100 && drained / PER_DRAIN <= 300);
	CHECK("work: opened and closed once", opened == 1 && closed == 1);
}

static void test_one_shot(void)
{
	struct seen v = { .stop_after_ticks = 3 };

	run(0, 0, &v);
	CHECK("one shot: a stop ends the run", v.why == SESSION_STOPPED && v.ticks == 3);
	CHECK("one shot: one profile, with everything", v.profiles == 1 && v.total == drained &&
	      v.stat_samples == drained);
}

static void test_command_exit(void)
{
	struct seen v = { .stop_after_s = 6 };
	pid_t killer = fork();

	if (killer == 0) {
		usleep(300000);
		kill(sleeper, SIGKILL);
		_exit(0);
	}
	run(0, 5, &v);
	waitpid(killer, NULL, 0);
	CHECK("command: its exit ends the run", v.why == SESSION_CHILD_EXITED &&
	      v.profiles == 1);
}

int main(void)
{
	sleeper = test_spawn_sleep(NULL);
	test_intervals();
	test_one_shot();
	test_command_exit();
	kill(sleeper, SIGKILL);
	waitpid(sleeper, NULL, 0);
	UNIT_EXIT();
}
