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
	uint64_t start_ns;	/* the measurement's start */
	uint64_t on_ns;		/* attached time of the closed windows */
	uint64_t on_since;	/* the open window's start */
};

/* Closed, the first window after a random part of one mean gap. */
void alloc_gate_init(struct alloc_gate *g, double duty, uint64_t seed, uint64_t now);

/* The gate changed state (on) at `at`, the middle of the attach or
 * detach: the next change is scheduled. */
void alloc_gate_changed(struct alloc_gate *g, bool on, uint64_t at);

/* The measured share of the time since init the probe was attached. */
double alloc_gate_duty(const struct alloc_gate *g, uint64_t now);

#endif
