/* SPDX-License-Identifier: MIT */
/* Inside the collector: the struct behind struct collector, shared by
 * its loading and draining (collector.c) and the allocator probes
 * (collector_alloc.c).  Not for other modules. */
#ifndef LBP_COLLECTOR_INT_H
#define LBP_COLLECTOR_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/hashidx.h"
#include "sample/collector.h"
#include "sample/verifier.h"

struct collector {
	struct sampler_bpf *skel;
	struct bpf_link **links;
	int *pfds;
	int ncpus, nattached;
	struct bpf_link *switch_link;	/* off-CPU: the sched_switch program */
	bool offcpu, cpu_clock;
	uint64_t min_block_ns;
	unsigned hz;
	/* Period jitter (collector_jitter.c): the CPUs' clocks tick every
	 * period_ns from grid_ns on. */
	uint64_t jitter_state;	/* xorshift64 state, 0: jitter disabled */
	uint64_t period_ns, grid_ns, next_jitter_ns;
	uint32_t max_stacks;
	/* Stack ids already read from the kernel; once they fill half the map
	 * they are deleted there and kept here for one more drain, since a
	 * count may still arrive for them. */
	uint64_t *seen;
	size_t nseen;
	struct hashidx seen_idx;	/* over seen[] */
	struct stack_trace *grave;
	uint64_t *grave_ids;
	size_t ngrave;
	struct sample_key *keys;
	uint64_t *vals;
	struct stack_trace *st;
	/* -e alloc: one uprobe link per target process and allocator. */
	uint64_t alloc_every;
	struct alloc_link *alinks;
	int nalinks, calinks;
	/* Duty cycle: the probes are attached only while alloc_on
	 * (collector_alloc_gate); sites are kept with link NULL otherwise. */
	bool alloc_gated, alloc_on;
	struct ring_buffer *news;	/* prototype announcements */
	news_fn news_cb;		/* during collector_read_news */
	void *news_ctx;
	struct ring_buffer *native;	/* --native: samples with their stacks */
	native_fn native_cb;		/* during collector_drain_native */
	void *native_ctx;
};

/* collector_load.c: opens the sampler, sets it up for o and loads it,
 * handing fn (when not NULL) the verifier's statistics of each program;
 * NULL with one line in err when that fails. */
struct sampler_bpf *collector_load(const struct collector_opts *o, verifier_fn fn, void *ctx,
				   char *err, size_t errlen);
bool collector_wants_cpu_clock(const struct collector_opts *o);
uint64_t collector_offcpu_keep(double rate);

/* The stack for id: from the kernel map, else from the graveyard. */
const struct stack_trace *collector_stack_for(struct collector *c, uint64_t id);

/* --native: sets up the ring buffer of native samples (collector_native.c). */
int collector_native_open(struct collector *c, char *err, size_t errlen);

/* Period jitter: the clocks put on one grid once attached, and a new
 * period now and then, at a drain, right after a tick. */
void collector_jitter_start(struct collector *c);
void collector_jitter(struct collector *c);

struct alloc_link {
	pid_t pid;
	uint64_t off;
	char path[320];
	struct bpf_link *link;
};

/* Detaches pid's allocator probes (the process is gone or dropped). */
void collector_detach_alloc(struct collector *c, pid_t pid);

#endif
