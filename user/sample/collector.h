/* SPDX-License-Identifier: MIT */
/* The BPF side from user space: load the sampler, attach it to cpu-clock
 * perf events on every online CPU (or, for off-CPU time, to the
 * sched_switch tracepoint), tell it which processes to walk, and drain its
 * aggregated counts. */
#ifndef LBP_COLLECTOR_H
#define LBP_COLLECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/sampler_types.h"
#include "sample/verifier.h"

struct collector;

/* The automatic off-CPU rate's budget: switches walked per second and CPU
 * before it samples (bench/RESULTS.md, figure 9: 1.8 us each, 0.2% of a
 * CPU at most). */
#define OFFCPU_AUTO_PER_SEC	1000ull

struct collector_opts {
	unsigned hz;
	uint32_t max_stacks;	/* entries of the stacks map */
	uint32_t max_counts;	/* entries of the counts map */
	uint32_t max_frames;	/* frames walked before truncation */
	/* Off-CPU time from sched_switch: its counts are OFFCPU_VALUE pairs
	 * under SAMPLE_OFFCPU keys, next to the cpu-clock samples' counts
	 * unless no_cpu_clock. */
	bool offcpu;
	bool no_cpu_clock;
	uint64_t min_block_ns;	/* shorter blocks are only counted */
	/* The share of switches out walked, 1: all; 0: the automatic rate,
	 * all of them up to OFFCPU_AUTO_PER_SEC per CPU, then 1 in 2^k. */
	double offcpu_rate;
	/* -e alloc: bytes allocated per sample; 0 for cpu-clock sampling.
	 * Nothing is attached per CPU then: collector_attach_alloc attaches
	 * the allocator uprobe of each target. */
	uint64_t alloc_every;
	/* The probes are attached only when collector_alloc_gate says so
	 * (alloc_gate.h's windows), not from the start. */
	bool alloc_gated;
	/* --native: each cpu-clock sample comes with a copy of its user
	 * stack (collector_drain_native) instead of being counted. */
	bool native;
	/* Timeline formats: each key keeps the time slot of this width its
	 * sample fell in (sample_key.time_slot); 0: none. */
	uint64_t time_slot_ns;
	/* The walker's caches off (bpf/walkcache.bpf.h): for before/after
	 * measurements of them (bench/RESULTS.md, section 2). */
	bool no_walk_caches;
};

/* Loads and attaches; on failure writes a one-line reason into err. */
struct collector *collector_open(const struct collector_opts *o, char *err, size_t errlen);
void collector_close(struct collector *c);
/* Detaches every program: no sample, switch or allocation is taken after
 * it, so a drain that follows holds everything the counters count. */
void collector_stop(struct collector *c);

/* Loads what a run with options o would load, attaches nothing, and hands
 * fn what the kernel's verifier said about each program (--check-kernel).
 * 0 when it loaded, else -1 with the one line a run would print in err. */
int collector_check(const struct collector_opts *o, verifier_fn fn, void *ctx, char *err,
		    size_t errlen);

/* Starts or updates walking pid with these VMs (n may be 0: samples are
 * then counted as host time and as "no VM"). */
int collector_set_proc(struct collector *c, pid_t pid, const struct vm_slot *vms, int n,
		       const struct ngx_offsets *ngx);
/* The labels the sampler copied of the request under id (sample_key.req);
 * -1 when they are gone (the reqs map is an LRU). */
int collector_req_label(struct collector *c, uint64_t id, struct req_label *out);
int collector_del_proc(struct collector *c, pid_t pid);

/* Whether this collector samples allocations (collector_opts.alloc_every). */
bool collector_samples_alloc(const struct collector *c);

/* Attaches the allocation sampler to the allocator at file offset off of
 * path, for pid only; attaching the same site of the same pid again does
 * nothing.  -1 with errno on failure. */
int collector_attach_alloc(struct collector *c, pid_t pid, const char *path, uint64_t off);

/* Attaches (on) or detaches every known allocator probe; returns the
 * CLOCK_MONOTONIC time the change counts as made: when the attach is
 * done, when the detach starts. */
uint64_t collector_alloc_gate(struct collector *c, bool on);

/* How many allocators of live targets are known (attached or not). */
int collector_alloc_sites(const struct collector *c);

/* Called per drained count; st is NULL when the stack is not available. */
typedef void (*drain_fn)(void *ctx, const struct sample_key *key, uint64_t count,
			 const struct stack_trace *st);

/* Moves every count out of the kernel maps into fn. */
int collector_drain(struct collector *c, drain_fn fn, void *ctx);

/* Off-CPU: the threads still off the CPU now (the run ends), each with
 * its time so far, into fn; they are forgotten in the kernel. */
int collector_drain_parked(struct collector *c, drain_fn fn, void *ctx);

/* Called per prototype a walk met for the first time (bpf/protos.bpf.h). */
typedef void (*news_fn)(void *ctx, const struct proto_news *n);

/* A descriptor that turns readable when prototype news is waiting, to
 * poll() on; -1 when there is none. */
int collector_news_fd(const struct collector *c);

/* Hands every waiting piece of prototype news to fn; returns how many. */
int collector_read_news(struct collector *c, news_fn fn, void *ctx);

/* --native: called per sample sent with its native stack; st is its Lua
 * stack (NULL when not available or none). */
typedef void (*native_fn)(void *ctx, const struct native_sample *s, const struct stack_trace *st);

/* Hands every waiting native sample to fn; returns how many.  Call before
 * collector_drain, which may recycle the stacks they refer to. */
int collector_drain_native(struct collector *c, native_fn fn, void *ctx);

/* Totals of the kernel's counters (enum lbp_counter), summed over CPUs. */
void collector_counters(struct collector *c, uint64_t out[CNT__MAX]);

/* The program's bpf_stats (run_time_ns, run_cnt); 0s when stats are off. */
void collector_prog_stats(struct collector *c, uint64_t *run_ns, uint64_t *run_cnt);

/* Number of CPUs sampled. */
int collector_ncpus(const struct collector *c);

#endif
