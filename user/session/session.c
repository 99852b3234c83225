// SPDX-License-Identifier: MIT
/* The session loop: targets, host scanning, the kinds of work, the tick
 * and drain cadence and the profile in progress, once for every mode. */
#define _GNU_SOURCE
#include "session/session.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "base/clock.h"
#include "base/log.h"
#include "model/profile.h"
#include "model/timeline.h"
#include "sample/collector.h"
#include "sample/drain.h"
#include "sample/sysscan.h"
#include "sample/targets.h"
#include "session/work.h"

#define TICK_NS		100000000ull	/* loop period */
#define WAIT_TICK_NS	10000000ull	/* ... while a target has no VM yet */
#define CHILD_WAIT_TICK_NS 1000000ull	/* ... a command launched: it may live 0.1 s */
/* A launched command is drained this often in its first second: a short
 * program's memory is gone once it exits, and its frames with it. */
#define YOUNG_DRAIN_NS	4000000ull
#define YOUNG_NS	1000000000ull
/* Kernel maps are drained this often: symbolizing soon after sampling
 * keeps short-lived targets and closures nameable. */
#define DRAIN_NS	200000000ull
#define FOLLOW_NS	100000000ull	/* a command's new descendants looked for */

struct session {
	struct session_config c;
	struct targets *ts;
	struct sysscan *scan;		/* -a only */
	struct work works[SESSION_MAX_WORK];
	int nworks;
	struct profile *prof;		/* in progress */
	struct profile_stats prev;	/* running totals at the last cut */
	uint64_t start_mono;		/* of the profile in progress */
	uint64_t run_start;		/* of session_run: -d counts from here */
	uint64_t profiles;		/* finished */
	pid_t child;			/* launched command, or 0 */
	bool child_started;		/* exec'd: follow its descendants */
	uint64_t next_follow_ns;
	int child_status;
};

/* ==== Work ==== */

/* Every kind of work drains into the profile in progress. */
static void drain_all(struct session *s)
{
	for (int i = 0; i < s->nworks; i++)
		if (s->works[i].kind->drain)
			s->works[i].kind->drain(&s->works[i], s->ts, s->prof);
}

static void flush_for_scan(void *ctx)
{
	drain_all(ctx);
}

static int open_works(struct session *s, char *err, size_t errlen)
{
	const struct work_kind *const *kinds = s->c.kinds ? s->c.kinds : work_kinds();

	for (int i = 0; kinds[i] && s->nworks < SESSION_MAX_WORK; i++) {
		struct work *w = &s->works[s->nworks];

		memset(w, 0, sizeof(*w));
		w->kind = kinds[i];
		if (w->kind->wanted && !w->kind->wanted(&s->c))
			continue;
		s->nworks++;	/* closed even when open fails half way */
		if (w->kind->open(w, &s->c, s->ts, err, errlen))
			return -1;
	}
	return 0;
}

/* Sleeps ns, serving the works whose descriptor turns readable meanwhile
 * (new prototypes must be read within milliseconds, before the GC can
 * free them).  Returns early on a signal, so that a stop is seen. */
static void sleep_serving(struct session *s, uint64_t ns)
{
	struct pollfd fds[SESSION_MAX_WORK];
	int owner[SESSION_MAX_WORK], n = 0;
	uint64_t end = clock_ns(CLOCK_MONOTONIC) + ns;

	for (int i = 0; i < s->nworks; i++) {
		const struct work_kind *k = s->works[i].kind;
		int fd = k->fd && k->wake ? k->fd(&s->works[i]) : -1;

		if (fd >= 0) {
			fds[n] = (struct pollfd){ .fd = fd, .events = POLLIN };
			owner[n++] = i;
		}
	}
	for (;;) {
		uint64_t now = clock_ns(CLOCK_MONOTONIC), left = end > now ? end - now : 0;
		struct timespec ts = { (time_t)(left / 1000000000ull), (long)(left % 1000000000ull) };
		int r;

		if (!left)
			return;
		if (!n) {
			nanosleep(&ts, NULL);
			return;
		}
		r = ppoll(fds, (nfds_t)n, &ts, NULL);
		if (r <= 0)
			return;		/* time is up, or a signal */
		for (int j = 0; j < n; j++)
			if (fds[j].revents)
				s->works[owner[j]].kind->wake(&s->works[owner[j]], s->ts);
	}
}

/* ==== Set-up ==== */

struct session *session_open(const struct session_config *c, char *err, size_t errlen)
{
	struct session *s = calloc(1, sizeof(*s));

	if (!s || !(s->ts = targets_new()) || !(s->prof = profile_new(c->hz))) {
		snprintf(err, errlen, "out of memory");
		session_close(s);
		return NULL;
	}
	s->c = *c;
	s->child_status = -1;
	s->prof->event = c->event;
	s->prof->start_ns = clock_ns(CLOCK_REALTIME);
	s->prof->alloc_every = c->alloc_every;
	targets_set_label_from(s->ts, c->label_from);
	targets_set_stop(s->ts, c->stop);
	if (c->time_slot_ns)
		profile_keep_timeline(s->prof, clock_ns(CLOCK_MONOTONIC), c->time_slot_ns,
				      TIMELINE_MAX_EVENTS);
	s->prof->alloc_duty = c->alloc_duty;
	s->prof->offcpu_rate = c->offcpu_rate;
	targets_set_profile(s->ts, s->prof);
	for (int i = 0; i < c->npids; i++)
		if (targets_add(s->ts, c->pids[i], true, err, errlen))
			goto fail;
	if (open_works(s, err, errlen))
		goto fail;
	if (c->all) {
		struct sysscan_opts so = { .watch_vms = true, .flush = flush_for_scan,
					   .flush_ctx = s };

		s->scan = sysscan_new(s->ts, &so);
		if (!s->scan) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		sysscan_add_all(s->scan);
	}
	return s;
fail:
	session_close(s);
	return NULL;
}

int session_add_command(struct session *s, pid_t pid, char *err, size_t errlen)
{
	if (targets_add(s->ts, pid, false, err, errlen))
		return -1;
	s->child = pid;
	return 0;
}

void session_command_started(struct session *s)
{
	targets_exec_done(s->ts, s->child);
	s->child_started = true;
}

/* ==== The loop ==== */

/* Ends the profile in progress at now and hands it on; unless it is the
 * last, a fresh one takes its place, starting where it ends. */
static int cut(struct session *s, const struct session_consumer *c, uint64_t now, bool last)
{
	struct profile *p, *fresh = NULL;
	struct profile_stats cur;
	int rc = 0;

	for (int i = 0; last && i < s->nworks; i++)
		if (s->works[i].kind->settle)
			s->works[i].kind->settle(&s->works[i], s->ts, s->prof);
	drain_all(s);
	p = s->prof;
	if (!last) {
		fresh = profile_new_like(p);
		if (!fresh) {
			log_error("out of memory: interval %llu merged into the next",
				  (unsigned long long)s->profiles + 1);
			return 0;
		}
	}
	p->duration_ns = now - s->start_mono;
	cur = p->stats;
	profile_stats_since(&p->stats, &s->prev);
	s->prev = cur;
	s->prof = fresh;
	targets_set_profile(s->ts, fresh);
	if (fresh)
		fresh->start_ns = p->start_ns + p->duration_ns;
	s->start_mono = now;
	s->profiles++;
	if (c->finished)
		rc = c->finished(c->ctx, s, p);
	profile_free(p);
	return rc;
}

/* Intervals start with session_run: what was drained before (while the
 * consumer set up) is dropped, with the counters so far as the baseline. */
static int restart(struct session *s)
{
	struct profile *fresh = profile_new_like(s->prof);

	if (!fresh)
		return -1;
	drain_all(s);
	s->prev = s->prof->stats;
	profile_free(s->prof);
	s->prof = fresh;
	targets_set_profile(s->ts, fresh);
	s->start_mono = clock_ns(CLOCK_MONOTONIC);
	fresh->start_ns = clock_ns(CLOCK_REALTIME);
	return 0;
}

/* Why the loop should stop now, or -1 to go on. */
static int should_end(struct session *s, uint64_t now)
{
	int status;

	if (*s->c.stop)
		return SESSION_STOPPED;
	if (s->c.duration_s > 0 && (double)(now - s->run_start) / 1e9 >= s->c.duration_s)
		return SESSION_DURATION;
	if (s->child > 0 && waitpid(s->child, &status, WNOHANG) == s->child) {
		s->child_status = status;
		return SESSION_CHILD_EXITED;
	}
	if (s->scan)
		sysscan_poll(s->scan, now);
	/* What the command starts (sh -c, resty, busted) is profiled too. */
	if (s->child_started && now >= s->next_follow_ns) {
		targets_follow_descendants(s->ts, s->child);
		s->next_follow_ns = now + FOLLOW_NS;
	}
	if (!targets_poll(s->ts, now) && !s->c.all)
		return SESSION_TARGETS_EXITED;
	return -1;
}

/* The next drain after now: soon while a launched command is young. */
static uint64_t drain_after(const struct session *s, uint64_t now, uint64_t start)
{
	return now + (s->child > 0 && now - start < YOUNG_NS ? YOUNG_DRAIN_NS : DRAIN_NS);
}

int session_run(struct session *s, const struct session_consumer *c)
{
	uint64_t every = (uint64_t)(s->c.every_s * 1e9), start, next_cut, next_drain;
	uint64_t tick;
	int why, rc = 0;

	s->start_mono = clock_ns(CLOCK_MONOTONIC);
	if (every && restart(s))
		return -1;
	start = s->run_start = s->start_mono;
	/* Said once everything is loaded and attached: what waits for the
	 * profile to start (a benchmark's window) waits for this line. */
	log_verbose("sampling: every program attached, the session runs");
	next_cut = start + every;
	next_drain = drain_after(s, start, start);
	while ((why = should_end(s, clock_ns(CLOCK_MONOTONIC))) < 0 && !rc) {
		uint64_t now = clock_ns(CLOCK_MONOTONIC);
		struct session_clock clk = { now, (double)(now - start) / 1e9, NULL };

		if (every && now >= next_cut) {
			rc = cut(s, c, now, false);
			while (next_cut <= now)
				next_cut += every;
			next_drain = drain_after(s, now, start);
		} else if (now >= next_drain) {
			drain_all(s);
			next_drain = drain_after(s, now, start);
		}
		for (int i = 0; i < s->nworks; i++)
			if (s->works[i].kind->tick)
				s->works[i].kind->tick(&s->works[i], now);
		clk.prof = s->prof;	/* after the cut: the profile now in progress */
		if (c->tick)
			c->tick(c->ctx, s, &clk);
		/* A process waiting for its VM (a command just launched) is
		 * looked at often, so its first samples are not lost. */
		tick = !targets_waiting(s->ts) ? TICK_NS :
		       s->child > 0 ? CHILD_WAIT_TICK_NS : WAIT_TICK_NS;
		/* A young command is drained every few ms: tick as often. */
		if (s->child > 0 && now - start < YOUNG_NS && tick > YOUNG_DRAIN_NS)
			tick = YOUNG_DRAIN_NS;
		sleep_serving(s, tick);
	}
	if (rc)
		return rc;
	if (c->ended)
		c->ended(c->ctx, s, (enum session_end)why);
	/* Notice exits (a launched command that was just reaped) before the
	 * last drain, so their symbols are used as cached, not revalidated
	 * against memory that is gone. */
	targets_poll(s->ts, clock_ns(CLOCK_MONOTONIC));
	return cut(s, c, clock_ns(CLOCK_MONOTONIC), true);
}

/* ==== Queries ==== */

int session_child_status(const struct session *s)
{
	return s->child_status;
}

struct targets *session_targets(struct session *s)
{
	return s->ts;
}

FILE *session_open_source(const char *path, void *session)
{
	struct session *s = session;

	return targets_open_source(path, s->ts);
}

void session_prog_stats(struct session *s, uint64_t *run_ns, uint64_t *run_cnt)
{
	*run_ns = *run_cnt = 0;
	for (int i = 0; i < s->nworks; i++) {
		uint64_t ns = 0, cnt = 0;

		if (s->works[i].kind->cost)
			s->works[i].kind->cost(&s->works[i], &ns, &cnt);
		*run_ns += ns;
		*run_cnt += cnt;
	}
}

uint64_t session_profiles(const struct session *s)
{
	return s->profiles;
}

void session_close(struct session *s)
{
	if (!s)
		return;
	sysscan_free(s->scan);
	for (int i = s->nworks - 1; i >= 0; i--)
		s->works[i].kind->close(&s->works[i]);
	targets_free(s->ts);
	profile_free(s->prof);
	free(s);
}
