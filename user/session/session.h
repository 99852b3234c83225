/* SPDX-License-Identifier: MIT */
/* The session: one loop that attaches, ticks, drains and finishes
 * profiles, whatever consumes them.
 *
 * A session owns the targets, the host scanner (-a), the kinds of work it
 * drives (today: cpu-clock sampling) and the profile in progress.  It
 * ticks about ten times a second, drains the kernel every 200 ms so that
 * short-lived targets and closures stay nameable, and hands each finished
 * profile to a consumer: one at the end of a one-shot run (cli/main.c
 * renders it), or one per interval (ship/agent.c ships it).  See
 * user/session/README.md for how new kinds of work plug in. */
#ifndef LBP_SESSION_H
#define LBP_SESSION_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "model/profile.h"

struct profile;
struct session;
struct targets;
struct work_kind;

struct session_config {
	unsigned hz;
	/* What the profiles measure (-e): cpu-clock samples, off-CPU time
	 * from sched_switch, or both as wall time. */
	enum profile_event event;
	uint64_t min_block_ns;		/* off-CPU: shorter blocks are only counted */
	uint64_t alloc_every;		/* -e alloc: bytes per sample; 0: cpu-clock */
	double offcpu_rate;		/* off-CPU: share of switches walked (0: all) */
	double alloc_duty;		/* -e alloc: share of time probed (0 or 1: all) */
	uint32_t max_stacks, max_counts, max_frames;	/* BPF map sizes, walk depth */
	bool lua_only;			/* drop [host] samples */
	bool keep_root;			/* keep the host's C entry frame at the bottom */
	bool no_stitch;			/* a coroutine's own frames, not its resumers' */
	bool native;			/* --native: each sample's native stack too */
	/* Timeline formats: the profile keeps each sample's time, to this
	 * precision (model/timeline.h); 0: it does not. */
	uint64_t time_slot_ns;
	int uri_template;	/* nginx request labels' URIs (drain_opts) */
	const pid_t *pids;		/* -p: each must run LuaJIT */
	int npids;
	bool all;			/* -a: every LuaJIT process on the host */
	const char *label_from;		/* --label-from's program, or NULL */
	double duration_s;		/* 0: until stopped, or every target exits */
	/* 0: one profile, at the end.  Else a profile every this many seconds
	 * (back to back: each sample is in exactly one), and the first starts
	 * when session_run does. */
	double every_s;
	volatile sig_atomic_t *stop;	/* non-zero: finish and return */
	/* The kinds of work, NULL-terminated; NULL: work_kinds() (tests give
	 * their own, without BPF). */
	const struct work_kind *const *kinds;
};

enum session_end {
	SESSION_STOPPED,		/* *stop was set */
	SESSION_DURATION,		/* duration_s elapsed */
	SESSION_CHILD_EXITED,		/* the launched command exited */
	SESSION_TARGETS_EXITED,		/* every target exited (not with -a) */
};

/* Where the loop stands, each tick. */
struct session_clock {
	uint64_t now_ns;		/* CLOCK_MONOTONIC */
	double elapsed_s;		/* since session_run */
	const struct profile *prof;	/* in progress: its stats are the kernel's so far */
};

/* What receives the session's output.  Every hook may be NULL. */
struct session_consumer {
	void *ctx;
	/* About ten times a second. */
	void (*tick)(void *ctx, struct session *s, const struct session_clock *c);
	/* The loop stopped; the last profile is finished next. */
	void (*ended)(void *ctx, struct session *s, enum session_end why);
	/* A finished profile: the whole run, or one interval (its counters
	 * are then that interval's).  Valid during the call only.  Nonzero
	 * ends the run; session_run returns it. */
	int (*finished)(void *ctx, struct session *s, struct profile *p);
};

/* Adds the -p targets, loads and attaches the BPF side, scans the host
 * (-a).  On failure writes a one-line reason into err and returns NULL. */
struct session *session_open(const struct session_config *c, char *err, size_t errlen);

/* Profiles a command just launched (held before exec until the caller
 * releases it): waits for its VM, and ends the run when it exits. */
int session_add_command(struct session *s, pid_t pid, char *err, size_t errlen);

/* The command runs its program now (after exec): name it by that.  Its
 * descendants are followed from here on. */
void session_command_started(struct session *s);

/* The loop: runs until stopped, the duration ends or the targets exit,
 * then finishes the last profile.  Returns 0, or what finished returned. */
int session_run(struct session *s, const struct session_consumer *c);

/* The launched command's wait status once it exited (session_run ended
 * with SESSION_CHILD_EXITED); -1 before. */
int session_child_status(const struct session *s);

/* The processes profiled (for messages and source lookups). */
struct targets *session_targets(struct session *s);

/* Opens a source file a chunk names, in the targets' file systems. */
FILE *session_open_source(const char *path, void *session);

/* Kernel time of the BPF programs: run time and runs (0s when the
 * kernel's bpf_stats are off). */
void session_prog_stats(struct session *s, uint64_t *run_ns, uint64_t *run_cnt);

/* Finished profiles so far. */
uint64_t session_profiles(const struct session *s);

void session_close(struct session *s);

#endif
