/* SPDX-License-Identifier: MIT */
/* -e alloc's duty cycle: when the allocator probe is attached.  The probe
 * traps on every allocation while attached (9-22x slower, bench figure 8),
 * so by default it is attached only for random windows that add up to a
 * share `duty` of the time: window lengths uniform in [W/2, 3W/2] and gaps
 * uniform around the mean that gives the duty, so that no workload rhythm
 * stays in phase with them.  What the windows saw is scaled up by the
 * share of time they were measured to cover (alloc_gate_duty). */
#ifndef LBP_ALLOC_GATE_H
#define LBP_ALLOC_GATE_H

#include <stdbool.h>
#include <stdint.h>

#define ALLOC_GATE_WINDOW_NS	50000000ull	/* mean window: 50 ms */

struct alloc_gate {
	double duty;		/* the share of time asked for, (0, 1) */
	uint64_t rng;		/* xorshift64 state, never 0 */
	bool on;		/* attached now */
	uint64_t due_ns;	/* when to change next (CLOCK_MONOTONIC) */
	/* Time is counted only while some target has an allocator to probe
	 * (live): before the first and after the last, nothing allocates. */
	bool live;
	uint64_t last_ns;	/* the last observation */
	uint64_t live_ns;	/* live time so far */
	uint64_t on_ns;		/* ... of which attached */
};

/* Closed, the first window after a random part of one mean gap. */
void alloc_gate_init(struct alloc_gate *g, double duty, uint64_t seed, uint64_t now);

/* Time passed up to now in the gate's state; from now on the targets
 * are live or not. */
void alloc_gate_observe(struct alloc_gate *g, uint64_t now, bool live);

/* The gate changed state (on) at `at` (collector_alloc_gate): the time
 * up to it is counted, the next change scheduled. */
void alloc_gate_changed(struct alloc_gate *g, bool on, uint64_t at, bool live);

/* The measured share of the live time the probe was attached. */
double alloc_gate_duty(const struct alloc_gate *g);

#endif
