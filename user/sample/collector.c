// SPDX-License-Identifier: MIT
/* Sampler loading, perf_event attachment and map draining. */
#include "sample/collector.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/hashfn.h"
#include "base/hashidx.h"
#include "base/log.h"
#include "sample/collector_int.h"
#include "sampler.skel.h"

#define DRAIN_BATCH	1024

static int open_cpu_clock(int cpu, unsigned hz)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.sample_period = 1000000000ull / hz,
	};

	return (int)syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static int attach_cpus(struct collector *c, unsigned hz, char *err, size_t errlen)
{
	int ncpus = libbpf_num_possible_cpus();

	if (ncpus <= 0) {
		snprintf(err, errlen, "cannot count CPUs");
		return -1;
	}
	c->ncpus = ncpus;
	c->links = calloc((size_t)ncpus, sizeof(*c->links));
	c->pfds = calloc((size_t)ncpus, sizeof(*c->pfds));
	if (!c->links || !c->pfds) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int cpu = 0; cpu < ncpus; cpu++) {
		int fd = open_cpu_clock(cpu, hz);

		c->pfds[cpu] = fd;
		if (fd < 0) {
			if (errno == ENODEV) {
				log_verbose("CPU %d is offline: not sampled", cpu);
				continue;
			}
			if (errno == EMFILE || errno == ENFILE)
				snprintf(err, errlen, "perf_event_open on CPU %d: too many open files", cpu);
			else if (errno == EACCES || errno == EPERM)
				snprintf(err, errlen, "perf_event_open: permission denied (needs root or CAP_PERFMON)");
			else
				snprintf(err, errlen, "perf_event_open on CPU %d: %s", cpu, strerror(errno));
			return -1;
		}
		c->links[cpu] = bpf_program__attach_perf_event(c->skel->progs.on_sample, fd);
		if (!c->links[cpu]) {
			snprintf(err, errlen, "attaching the sampler to CPU %d: %s", cpu,
				 errno == EMFILE || errno == ENFILE ? "too many open files" : strerror(errno));
			return -1;
		}
		c->nattached++;
	}
	if (!c->nattached) {
		snprintf(err, errlen, "no online CPU could be sampled");
		return -1;
	}
	log_verbose("sampling at %d Hz on %d CPU(s)", hz, c->nattached);
	return 0;
}

static int on_news(void *ctx, void *data, size_t size)
{
	struct collector *c = ctx;
	const struct proto_news *n = data;
	size_t head = offsetof(struct proto_news, block);

	/* Only block_len bytes of the block are sent. */
	if (size >= head && n->block_len <= size - head && c->news_cb)
		c->news_cb(c->news_ctx, n);
	return 0;
}

struct collector *collector_open(const struct collector_opts *o, char *err, size_t errlen)
{
	struct collector *c = calloc(1, sizeof(*c));

	if (!c) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	c->skel = collector_load(o, NULL, NULL, err, errlen);
	if (!c->skel)
		goto fail;
	c->max_stacks = o->max_stacks;
	c->min_block_ns = o->min_block_ns;
	c->offcpu = o->offcpu;
	c->alloc_every = o->alloc_every;
	c->alloc_gated = o->alloc_gated;
	c->cpu_clock = collector_wants_cpu_clock(o);
	c->hz = o->hz;
	if (o->offcpu) {
		c->switch_link = bpf_program__attach(c->skel->progs.on_switch);
		if (!c->switch_link) {
			snprintf(err, errlen, "attaching to the sched_switch tracepoint: %s",
				 strerror(errno));
			goto fail;
		}
	}
	if (c->cpu_clock && attach_cpus(c, o->hz, err, errlen))
		goto fail;
	if (c->cpu_clock)
		collector_jitter_start(c);
	c->news = ring_buffer__new(bpf_map__fd(c->skel->maps.proto_ring), on_news, c, NULL);
	if (!c->news) {
		snprintf(err, errlen, "setting up the prototype ring buffer: %s",
			 errno == EMFILE || errno == ENFILE ? "too many open files (raise ulimit -n)" :
			 strerror(errno));
		goto fail;
	}
	if (o->native && collector_native_open(c, err, errlen))
		goto fail;
	c->seen = calloc(o->max_stacks, sizeof(*c->seen));
	c->grave_ids = calloc(o->max_stacks, sizeof(*c->grave_ids));
	c->grave = calloc(o->max_stacks / 2 + 1, sizeof(*c->grave));
	c->keys = calloc(DRAIN_BATCH, sizeof(*c->keys));
	c->vals = calloc(DRAIN_BATCH, sizeof(*c->vals));
	c->st = calloc(1, sizeof(*c->st));
	if (!c->seen || !c->grave_ids || !c->grave || !c->keys || !c->vals || !c->st) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	return c;
fail:
	collector_close(c);
	return NULL;
}

void collector_stop(struct collector *c)
{
	for (int i = 0; i < c->ncpus; i++) {
		bpf_link__destroy(c->links ? c->links[i] : NULL);
		if (c->links)
			c->links[i] = NULL;
		if (c->pfds && c->pfds[i] > 0)
			close(c->pfds[i]);
		if (c->pfds)
			c->pfds[i] = -1;
	}
	bpf_link__destroy(c->switch_link);
	c->switch_link = NULL;
	for (int i = 0; i < c->nalinks; i++) {
		bpf_link__destroy(c->alinks[i].link);
		c->alinks[i].link = NULL;
	}
}

void collector_close(struct collector *c)
{
	if (!c)
		return;
	collector_stop(c);
	ring_buffer__free(c->news);
	ring_buffer__free(c->native);
	free(c->links);
	free(c->pfds);
	free(c->alinks);
	sampler_bpf__destroy(c->skel);
	free(c->seen);
	hashidx_free(&c->seen_idx);
	free(c->grave);
	free(c->grave_ids);
	free(c->keys);
	free(c->vals);
	free(c->st);
	free(c);
}

int collector_set_proc(struct collector *c, pid_t pid, const struct vm_slot *vms, int n,
		       const struct ngx_offsets *ngx)
{
	struct proc_info pi;
	__u32 key = (__u32)pid;

	memset(&pi, 0, sizeof(pi));
	pi.nvms = (__u32)(n < LBP_MAX_VMS ? n : LBP_MAX_VMS);
	memcpy(pi.vm, vms, pi.nvms * sizeof(*vms));
	if (ngx)
		pi.ngx = *ngx;
	return bpf_map__update_elem(c->skel->maps.procs, &key, sizeof(key), &pi, sizeof(pi), BPF_ANY);
}

int collector_req_label(struct collector *c, uint64_t id, struct req_label *out)
{
	__u64 key = id;

	return bpf_map__lookup_elem(c->skel->maps.reqs, &key, sizeof(key), out, sizeof(*out), 0);
}

int collector_del_proc(struct collector *c, pid_t pid)
{
	__u32 key = (__u32)pid;

	collector_detach_alloc(c, pid);
	return bpf_map__delete_elem(c->skel->maps.procs, &key, sizeof(key), 0);
}

static uint64_t seen_hash(const void *ctx, uint32_t e)
{
	return hash_u64(((const struct collector *)ctx)->seen[e], 0);
}

static bool seen_match(const void *ctx, uint32_t e, const void *key)
{
	return ((const struct collector *)ctx)->seen[e] == *(const uint64_t *)key;
}

static const struct hashidx_ops seen_ops = { seen_hash, seen_match };

/* Records id as read; false when it already was. */
static bool mark_seen(struct collector *c, uint64_t id)
{
	size_t hint;

	if (hashidx_find(&c->seen_idx, &seen_ops, c, hash_u64(id, 0), &id, &hint) != HASHIDX_NONE)
		return false;
	if (c->nseen >= c->max_stacks)
		return false;
	hashidx_add(&c->seen_idx, hint, (uint32_t)c->nseen);
	c->seen[c->nseen++] = id;
	return true;
}

/* The stack for id: from the kernel map, else from the graveyard. */
const struct stack_trace *collector_stack_for(struct collector *c, uint64_t id)
{
	int fd = bpf_map__fd(c->skel->maps.stacks);

	if (!bpf_map_lookup_elem(fd, &id, c->st)) {
		mark_seen(c, id);
		return c->st;
	}
	for (size_t i = 0; i < c->ngrave; i++)
		if (c->grave_ids[i] == id)
			return &c->grave[i];
	return NULL;
}

/* Frees kernel stack entries once half the map has been read. */
static void recycle_stacks(struct collector *c)
{
	int fd = bpf_map__fd(c->skel->maps.stacks);

	c->ngrave = 0;
	if (c->nseen < c->max_stacks / 2)
		return;
	for (size_t i = 0; i < c->nseen; i++) {
		if (bpf_map_lookup_elem(fd, &c->seen[i], &c->grave[c->ngrave]))
			continue;
		c->grave_ids[c->ngrave++] = c->seen[i];
		bpf_map_delete_elem(fd, &c->seen[i]);
		if (c->ngrave > c->max_stacks / 2)
			break;
	}
	c->nseen = 0;
	hashidx_clear(&c->seen_idx);
}

static void deliver(struct collector *c, const struct sample_key *key, uint64_t count,
		    drain_fn fn, void *ctx)
{
	const struct stack_trace *st = NULL;

	if (key->stack_id)
		st = collector_stack_for(c, key->stack_id);
	fn(ctx, key, count, st);
}

/* Fallback for kernels without batch ops on hash maps. */
static int drain_one_by_one(struct collector *c, int fd, drain_fn fn, void *ctx)
{
	struct sample_key prev, key;
	size_t n = 0;
	bool first = true;

	while (n < DRAIN_BATCH && !bpf_map_get_next_key(fd, first ? NULL : &prev, &key)) {
		c->keys[n++] = key;
		prev = key;
		first = false;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t v;

		if (!bpf_map_lookup_and_delete_elem(fd, &c->keys[i], &v))
			deliver(c, &c->keys[i], v, fn, ctx);
	}
	return n == DRAIN_BATCH ? 1 : 0;
}

int collector_drain(struct collector *c, drain_fn fn, void *ctx)
{
	int fd = bpf_map__fd(c->skel->maps.counts);
	__u64 batch = 0;
	bool first = true;

	collector_jitter(c);
	for (;;) {
		__u32 n = DRAIN_BATCH;
		int err = bpf_map_lookup_and_delete_batch(fd, first ? NULL : &batch, &batch,
							   c->keys, c->vals, &n, NULL);

		if (err && errno != ENOENT) {
			if (errno == EINVAL || errno == ENOTSUP || errno == ENOSPC) {
				while (drain_one_by_one(c, fd, fn, ctx) > 0)
					;
				break;
			}
			return -1;
		}
		for (__u32 i = 0; i < n; i++)
			deliver(c, &c->keys[i], c->vals[i], fn, ctx);
		if (err)
			break;	/* ENOENT: that was the last batch */
		first = false;
	}
	recycle_stacks(c);
	return 0;
}

int collector_drain_parked(struct collector *c, drain_fn fn, void *ctx)
{
	int fd;
	uint64_t now = clock_ns(CLOCK_MONOTONIC);
	size_t n = 0, cap = 0;
	__u32 *tids = NULL, tid;
	struct parked pk;

	if (!c->offcpu)
		return 0;
	fd = bpf_map__fd(c->skel->maps.parked);
	/* Keys first: deleting while iterating would restart the walk. */
	while (!bpf_map_get_next_key(fd, n ? &tids[n - 1] : NULL, &tid)) {
		if (n == cap) {
			__u32 *more = realloc(tids, (cap = cap ? 2 * cap : 256) * sizeof(*tids));

			if (!more)
				break;
			tids = more;
		}
		tids[n++] = tid;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t away;

		/* Whoever deletes the entry owns it: the thread may be coming
		 * back on another CPU right now. */
		if (bpf_map_lookup_and_delete_elem(fd, &tids[i], &pk) || now <= pk.since_ns)
			continue;
		away = now - pk.since_ns;
		if (away >= c->min_block_ns)
			deliver(c, &pk.key, OFFCPU_VALUE(1, away < OFFCPU_NS_MAX ? away : OFFCPU_NS_MAX),
				fn, ctx);
	}
	free(tids);
	return 0;
}

int collector_news_fd(const struct collector *c)
{
	return c->news ? ring_buffer__epoll_fd(c->news) : -1;
}

int collector_read_news(struct collector *c, news_fn fn, void *ctx)
{
	int n;

	if (!c->news)
		return 0;
	c->news_cb = fn;
	c->news_ctx = ctx;
	n = ring_buffer__consume(c->news);
	c->news_cb = NULL;
	return n < 0 ? 0 : n;
}

void collector_counters(struct collector *c, uint64_t out[CNT__MAX])
{
	int fd = bpf_map__fd(c->skel->maps.counters);
	int ncpu = libbpf_num_possible_cpus();
	/* One block per CPU: its size is a multiple of 8, as per-CPU values'
	 * slots are (sampler.h asserts it). */
	struct counter_block *per = ncpu > 0 ? calloc((size_t)ncpu, sizeof(*per)) : NULL;
	__u32 key = 0;

	memset(out, 0, CNT__MAX * sizeof(*out));
	if (per && !bpf_map_lookup_elem(fd, &key, per))
		for (int i = 0; i < ncpu; i++)
			for (int k = 0; k < CNT__MAX; k++)
				out[k] += per[i].n[k];
	free(per);
}

static void add_prog_stats(struct bpf_program *prog, uint64_t *run_ns, uint64_t *run_cnt)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (!bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len)) {
		*run_ns += info.run_time_ns;
		*run_cnt += info.run_cnt;
	}
}

void collector_prog_stats(struct collector *c, uint64_t *run_ns, uint64_t *run_cnt)
{
	*run_ns = *run_cnt = 0;
	if (c->cpu_clock)
		add_prog_stats(c->skel->progs.on_sample, run_ns, run_cnt);
	if (c->offcpu)
		add_prog_stats(c->skel->progs.on_switch, run_ns, run_cnt);
	if (c->alloc_every)
		add_prog_stats(c->skel->progs.on_alloc, run_ns, run_cnt);
}

int collector_ncpus(const struct collector *c)
{
	return c->nattached;
}
