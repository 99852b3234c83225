// SPDX-License-Identifier: MIT
/* Unit tests for the targets' life cycle (add, refuse, wait, exit,
 * remove) and for draining recorded kernel samples into a profile, with a
 * real but LuaJIT-free process (sleep) as the target.  No BPF. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/unit.h"
#include "model/profile.h"
#include "sample/drain.h"
#include "sample/targets.h"
#include "sample/test_proc.h"

static char dir[] = "/tmp/lbp-unit-targets.XXXXXX";

/* A child that has exited and is not reaped. */
static pid_t spawn_zombie(void)
{
	pid_t pid = fork();
	char path[64], buf[256];

	if (pid == 0)
		_exit(0);
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	for (int i = 0; i < 500; i++) {
		FILE *f = fopen(path, "r");
		char *rp;

		buf[0] = '\0';
		if (f) {
			if (!fgets(buf, sizeof(buf), f))
				buf[0] = '\0';
			fclose(f);
		}
		rp = strrchr(buf, ')');
		if (rp && rp[1] == ' ' && rp[2] == 'Z')
			break;
		usleep(2000);
	}
	return pid;
}

static void test_refusals(struct targets *ts, pid_t sleeper)
{
	char err[256], want[256];
	pid_t zombie = spawn_zombie();

	CHECK("add: a negative PID is refused", targets_add(ts, -5, true, err, sizeof(err)) == -1);
	CHECK_STR("add: ... saying so", err, "PID -5: no such process");
	snprintf(want, sizeof(want), "PID %d: is a zombie (it has exited)", (int)zombie);
	CHECK("add: a zombie is refused", targets_add(ts, zombie, false, err, sizeof(err)) == -1);
	CHECK_STR("add: ... saying so", err, want);
	waitpid(zombie, NULL, 0);
	snprintf(want, sizeof(want), "PID %d (sleep): no LuaJIT VM found", (int)sleeper);
	CHECK("add -p: a process without LuaJIT is refused",
	      targets_add(ts, sleeper, true, err, sizeof(err)) == -1);
	CHECK_STR("add -p: ... saying so", err, want);
	CHECK("add: nothing was kept", targets_count(ts) == 0);
}

static void test_life_cycle(struct targets *ts, struct profile *p, pid_t sleeper)
{
	char err[256], line[64] = "";
	struct target *t;
	FILE *f;

	CHECK("add --: waits for a VM", !targets_add(ts, sleeper, false, err, sizeof(err)));
	CHECK("add: one target", targets_count(ts) == 1);
	CHECK("add: twice is once", !targets_add(ts, sleeper, false, err, sizeof(err)) &&
	      targets_count(ts) == 1);
	t = targets_find(ts, sleeper);
	CHECK("find: by pid", t && t == targets_at(ts, 0) && target_pid(t) == sleeper);
	CHECK_STR("target: its comm", t ? target_comm(t) : NULL, "sleep");
	CHECK_STR("target: named in the profile", profile_comm(p, (uint32_t)sleeper), "sleep");
	CHECK("target: waiting, no VM", t && target_waiting(t) && target_nvms(t) == 0 &&
	      targets_waiting(ts));
	CHECK("poll: one running", targets_poll(ts, clock_ns(CLOCK_MONOTONIC)) == 1);
	/* Chunk names relative to the target's working directory. */
	f = targets_open_source("chunk.lua", ts);
	CHECK("open source: relative to the target's cwd", f && fgets(line, sizeof(line), f) &&
	      !strcmp(line, "return 42\n"));
	if (f)
		fclose(f);
	kill(sleeper, SIGKILL);
	waitpid(sleeper, NULL, 0);
	CHECK("poll: none running after the exit", targets_poll(ts, clock_ns(CLOCK_MONOTONIC)) == 0);
	CHECK("target: exited, no longer waiting", t && target_exited(t) && !target_waiting(t) &&
	      !targets_waiting(ts));
}

/* ==== Draining recorded samples ==== */

static void test_drain_offcpu(struct targets *ts, pid_t pid);

static struct stack_trace *stack(uint64_t g, uint32_t n, uint32_t flags)
{
	static struct stack_trace st;

	memset(&st, 0, sizeof(st));
	st.g = g;
	st.nframes = n;
	st.flags = flags;
	for (uint32_t i = 0; i < n; i++)
		st.frames[i].id = 0x5000 + i * 0x40;
	return &st;
}

static const struct sample *find_sample(const struct profile *p, uint32_t tid)
{
	for (size_t i = 0; i < p->nsamples; i++)
		if (p->samples[i].tid == tid)
			return &p->samples[i];
	return NULL;
}

static void test_drain(struct targets *ts, pid_t pid)
{
	struct profile *p = profile_new(99);
	struct drain_opts all = { 0 }, only_lua = { .lua_only = true };
	struct drain *d = drain_new(&all), *lua_only = drain_new(&only_lua);
	struct drain_state *ds;
	struct sample_key host = { .pid = (uint32_t)pid, .tid = 1, .flags = SAMPLE_HOST };
	struct sample_key gone = { .pid = (uint32_t)pid, .tid = 2, .flags = SAMPLE_NO_STACK };
	struct sample_key vm_gone = { .pid = (uint32_t)pid, .tid = 3, .stack_id = 77 };
	struct sample_key stranger = { .pid = 1, .tid = 4, .flags = SAMPLE_HOST };
	uint64_t cnt[CNT__MAX] = { [CNT_SAMPLES] = 21, [CNT_HOST] = 5, [CNT_BAD_FRAME] = 1 };
	const struct sample *s;

	ds = drain_begin(d, ts, p);
	drain_sample(ds, &host, 5, NULL);
	drain_sample(ds, &gone, 2, NULL);
	drain_sample(ds, &vm_gone, 4, stack(0xdead000, 3, STACK_TRUNCATED));
	vm_gone.tid = 5;
	drain_sample(ds, &vm_gone, 6, stack(0xdead000, 3, STACK_TRUNCATED));
	drain_sample(ds, &stranger, 9, NULL);
	drain_end(ds, cnt);
	s = find_sample(p, 1);
	CHECK("drain: host time is a [host] sample", s && s->count == 5 &&
	      (s->flags & PSAMPLE_HOST) && s->nframes == 0);
	s = find_sample(p, 2);
	CHECK("drain: a lost stack is one unknown frame", s && s->count == 2 && s->nframes == 1 &&
	      s->frames[0]->kind == SYM_UNKNOWN && p->stats.stack_lost == 2);
	s = find_sample(p, 3);
	CHECK("drain: frames of a VM that is gone are unknown, kept truncated",
	      s && s->count == 4 && s->nframes == 3 && s->frames[2]->kind == SYM_UNKNOWN &&
	      (s->flags & PSAMPLE_TRUNCATED));
	CHECK("drain: a stack shared in one pass is counted once",
	      p->stats.sym_unknown == 3 && find_sample(p, 5) && find_sample(p, 5)->nframes == 3);
	CHECK("drain: samples of other processes are dropped", !find_sample(p, 4) &&
	      p->total == 17);
	CHECK("drain: kernel counters copied", p->stats.samples == 21 && p->stats.host == 5 &&
	      p->stats.bad_frame == 1);

	/* The next pass symbolizes again: unknown frames add up. */
	ds = drain_begin(d, ts, p);
	drain_sample(ds, &vm_gone, 1, stack(0xdead000, 3, 0));
	drain_end(ds, NULL);
	CHECK("drain: unknown frames add up over passes", p->stats.sym_unknown == 6 &&
	      p->stats.samples == 21);

	ds = drain_begin(lua_only, ts, p);
	drain_sample(ds, &host, 50, NULL);
	drain_end(ds, NULL);
	CHECK("drain --lua-only: host time dropped", find_sample(p, 1)->count == 5);
	drain_free(lua_only);
	drain_free(d);
	profile_free(p);
}

int main(void)
{
	struct targets *ts = targets_new();
	struct profile *p = profile_new(99), *next = profile_new(99);
	char path[128];
	pid_t sleeper, drained;
	FILE *f;

	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/chunk.lua", dir);
	f = fopen(path, "w");
	fputs("return 42\n", f);
	fclose(f);
	targets_set_profile(ts, p);
	sleeper = test_spawn_sleep(dir);
	test_refusals(ts, sleeper);
	test_life_cycle(ts, p, sleeper);
	targets_set_profile(ts, next);
	CHECK_STR("set profile: names every target", profile_comm(next, (uint32_t)sleeper), "sleep");
	targets_remove(ts, sleeper);
	CHECK("remove: gone", targets_count(ts) == 0 && !targets_find(ts, sleeper));

	drained = test_spawn_sleep(dir);
	targets_add(ts, drained, false, path, sizeof(path));
	test_drain(ts, drained);
	test_drain_offcpu(ts, drained);
	kill(drained, SIGKILL);
	waitpid(drained, NULL, 0);
	targets_free(ts);
	profile_free(p);
	profile_free(next);
	snprintf(path, sizeof(path), "%s/chunk.lua", dir);
	unlink(path);
	rmdir(dir);
	UNIT_EXIT();
}

/* Off-CPU keys: OFFCPU_VALUE pairs become nanoseconds and switch counts,
 * runnable ones get the [waiting for a CPU] frame on top; in a wall
 * profile a cpu-clock sample weighs its period. */
static void test_drain_offcpu(struct targets *ts, pid_t pid)
{
	struct profile *p = profile_new(100);
	struct drain_opts all = { 0 };
	struct drain *d = drain_new(&all);
	struct drain_state *ds;
	struct sample_key blocked = { .pid = (uint32_t)pid, .tid = 1, .stack_id = 9,
				      .flags = SAMPLE_OFFCPU };
	struct sample_key waiting = { .pid = (uint32_t)pid, .tid = 2, .stack_id = 9,
				      .flags = SAMPLE_OFFCPU | SAMPLE_RUNNABLE };
	struct sample_key host_wait = { .pid = (uint32_t)pid, .tid = 3,
					.flags = SAMPLE_HOST | SAMPLE_OFFCPU | SAMPLE_RUNNABLE };
	struct sample_key cpu = { .pid = (uint32_t)pid, .tid = 4, .flags = SAMPLE_HOST };
	const struct sample *s;

	p->event = PROFILE_WALL;
	ds = drain_begin(d, ts, p);
	drain_sample(ds, &blocked, OFFCPU_VALUE(3, 7000000), stack(0xdead000, 2, 0));
	drain_sample(ds, &waiting, OFFCPU_VALUE(1, 250000), stack(0xdead000, 2, 0));
	drain_sample(ds, &host_wait, OFFCPU_VALUE(2, 40000), NULL);
	drain_sample(ds, &cpu, 5, NULL);
	drain_end(ds, NULL);
	s = find_sample(p, 1);
	CHECK("drain off-cpu: blocked time in ns, switches counted",
	      s && s->count == 7000000 && s->events == 3 && (s->flags & PSAMPLE_OFFCPU) &&
	      !(s->flags & PSAMPLE_WAITING) && s->nframes == 2);
	s = find_sample(p, 2);
	CHECK("drain off-cpu: waiting for a CPU is a frame on top",
	      s && s->count == 250000 && (s->flags & PSAMPLE_WAITING) && s->nframes == 3 &&
	      s->frames[0]->kind == SYM_STATE && !strcmp(s->frames[0]->name, "waiting for a CPU"));
	s = find_sample(p, 3);
	CHECK("drain off-cpu: [host] waiting keeps both flags", s && s->count == 40000 &&
	      (s->flags & PSAMPLE_HOST) && (s->flags & PSAMPLE_WAITING));
	s = find_sample(p, 4);
	CHECK("drain wall: a cpu-clock sample weighs its period", s && s->count == 50000000 &&
	      s->events == 5);
	drain_free(d);
	profile_free(p);
}
