// SPDX-License-Identifier: MIT
/* -e alloc's duty cycle (alloc_gate.h). */
#include "sample/alloc_gate.h"

static uint64_t next_random(struct alloc_gate *g)
{
	uint64_t x = g->rng;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	g->rng = x;
	return x >> 11;
}

/* Uniform in [mean/2, 3*mean/2). */
static uint64_t around(struct alloc_gate *g, uint64_t mean)
{
	return mean / 2 + (mean ? next_random(g) % mean : 0);
}

static uint64_t mean_gap(const struct alloc_gate *g)
{
	return (uint64_t)((double)ALLOC_GATE_WINDOW_NS * (1 - g->duty) / g->duty);
}

void alloc_gate_init(struct alloc_gate *g, double duty, uint64_t seed, uint64_t now)
{
	g->duty = duty > 0 && duty < 1 ? duty : 0.5;
	g->rng = seed | 1;
	g->on = g->live = false;
	g->last_ns = now;
	g->live_ns = g->on_ns = 0;
	g->due_ns = now + next_random(g) % (mean_gap(g) + 1);
}

void alloc_gate_observe(struct alloc_gate *g, uint64_t now, bool live)
{
	if (now <= g->last_ns) {
		g->live = live;
		return;
	}
	if (g->live) {
		g->live_ns += now - g->last_ns;
		if (g->on)
			g->on_ns += now - g->last_ns;
	}
	g->last_ns = now;
	g->live = live;
}

void alloc_gate_changed(struct alloc_gate *g, bool on, uint64_t at, bool live)
{
	alloc_gate_observe(g, at, live);
	g->on = on;
	g->due_ns = at + around(g, on ? ALLOC_GATE_WINDOW_NS : mean_gap(g));
}

double alloc_gate_duty(const struct alloc_gate *g)
{
	return g->live_ns ? (double)g->on_ns / (double)g->live_ns : 0;
}
