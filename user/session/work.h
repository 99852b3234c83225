/* SPDX-License-Identifier: MIT */
/* Kinds of work a session drives.  Each kind is a row of callbacks: the
 * session opens the kinds its configuration wants, ticks them, drains them
 * into the profile in progress at its cadence and closes them; none has a
 * loop of its own.  Kinds: stack sampling (work_cpu.c: cpu-clock,
 * off-CPU and allocation events, -e); a heap walk or a JIT report may
 * become new rows of work_kinds() (README.md). */
#ifndef LBP_WORK_H
#define LBP_WORK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct profile;
struct session_config;
struct targets;

#define SESSION_MAX_WORK 8

struct work {
	const struct work_kind *kind;
	void *state;			/* the kind's own */
};

struct work_kind {
	const char *name;
	/* Whether this configuration asks for it (NULL: always). */
	bool (*wanted)(const struct session_config *c);
	/* Sets up (loads, attaches); a one-line reason on failure. */
	int (*open)(struct work *w, const struct session_config *c, struct targets *ts,
		    char *err, size_t errlen);
	/* Each tick of the loop (NULL: nothing to do). */
	void (*tick)(struct work *w, uint64_t now_ns);
	/* Moves what was collected into the profile in progress. */
	void (*drain)(struct work *w, struct targets *ts, struct profile *into);
	/* The run ends: moves what is still open (threads off the CPU) into
	 * the last profile, before its last drain (NULL: nothing open). */
	void (*settle)(struct work *w, struct targets *ts, struct profile *into);
	/* A descriptor that turns readable when the kind has something to
	 * read at once, between ticks (NULL or -1: none), and what to do then. */
	int (*fd)(struct work *w);
	void (*wake)(struct work *w, struct targets *ts);
	/* Kernel time spent (NULL: none). */
	void (*cost)(struct work *w, uint64_t *run_ns, uint64_t *run_cnt);
	void (*close)(struct work *w);
};


/* The kinds, NULL-terminated, in the order they are opened. */
const struct work_kind *const *work_kinds(void);

#endif
