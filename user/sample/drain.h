/* SPDX-License-Identifier: MIT */
/* Drained kernel samples into the profile model: each stack symbolized
 * once per drain, zone and trace labels attached, losses counted.
 *
 * A drain (struct drain) lives as long as the session: it keeps what
 * outlives one pass (the prototype revalidation clock, unknown frames of
 * VMs that vanished).  One pass is drain_begin, drain_sample per kernel
 * count, drain_end; drain_run does a pass over the collector's maps.
 * Tests feed drain_sample recorded keys and stacks, without BPF. */
#ifndef LBP_DRAIN_H
#define LBP_DRAIN_H

#include <stdbool.h>
#include <stdint.h>

#include "base/sampler_types.h"

struct collector;
struct drain;
struct drain_state;
struct profile;
struct targets;

/* What a drain keeps of each stack. */
struct drain_opts {
	bool lua_only;		/* drop [host] samples */
	bool keep_root;		/* keep the host's C entry frame at the bottom */
	bool no_stitch;		/* a coroutine's own frames only, not its resumers' */
	bool native;		/* --native: samples come with their native stacks */
	/* Timeline formats: the kernel's time slot (collector_opts); each
	 * sample then goes on the profile's timeline at its slot's time. */
	uint64_t time_slot_ns;
	/* nginx request labels: how their URI paths are kept
	 * (enum uri_template_mode: 0 as they are, ids folded to :id). */
	int uri_template;
};

struct drain *drain_new(const struct drain_opts *o);
void drain_free(struct drain *d);

/* Drains the collector into p, and the kernel's counters into p->stats. */
int drain_run(struct drain *d, struct targets *ts, struct collector *col, struct profile *p);

/* The same for the threads still off the CPU at the end of a run
 * (collector_drain_parked). */
int drain_run_parked(struct drain *d, struct targets *ts, struct collector *col,
		     struct profile *p);

/* Reads the prototypes the walker met for the first time (bpf/protos.bpf.h)
 * into their VMs' symbol caches, so that their frames are named even once
 * they are freed; returns how many were announced. */
int drain_news(struct drain *d, struct targets *ts, struct collector *col);

/* One pass by hand.  drain_sample has the collector's drain_fn shape;
 * drain_end takes the kernel counters (NULL: left as they are) and frees
 * the pass. */
struct drain_state *drain_begin(struct drain *d, struct targets *ts, struct profile *p);
void drain_sample(void *state, const struct sample_key *key, uint64_t count,
		  const struct stack_trace *st);
void drain_end(struct drain_state *ds, const uint64_t cnt[CNT__MAX]);

#endif
