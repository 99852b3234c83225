// SPDX-License-Identifier: MIT
/* speedscope's own JSON file format: shared frames, and one "sampled"
 * profile per process whose samples are root-first frame index lists. */
#include "report/export.h"

#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "report/export_stack.h"
#include "report/speedscope_frames.h"


/* One per program (or per process with per_process): its merged stacks
 * (each a root-first index list). */
struct process_samples {
	uint32_t pid;			/* the program's lowest pid */
	uint32_t *pids;			/* the distinct pids merged here */
	size_t npids;
	struct keytab stacks;		/* uint32_t frame indexes */
	uint64_t *weights;		/* by stack index */
	size_t cap;
	uint64_t total;
};

static struct process_samples *group_of(struct process_samples **procs, size_t *n,
					uint32_t key)
{
	struct process_samples *ps;

	for (size_t i = 0; i < *n; i++)
		if ((*procs)[i].pid == key)
			return &(*procs)[i];
	ps = realloc(*procs, (*n + 1) * sizeof(**procs));
	if (!ps)
		return NULL;
	*procs = ps;
	ps = &ps[(*n)++];
	memset(ps, 0, sizeof(*ps));
	ps->pid = key;
	return ps;
}

/* The profile that pid's samples go to; NULL when out of memory. */
static struct process_samples *process_of(struct process_samples **procs, size_t *n,
					  const struct profile *p, uint32_t pid,
					  bool per_process)
{
	struct process_samples *ps = group_of(procs, n,
					      per_process ? pid : profile_program_pid(p, pid));
	size_t i = 0;

	if (!ps)
		return NULL;
	while (i < ps->npids && ps->pids[i] != pid)
		i++;
	if (i == ps->npids) {
		uint32_t *pids = realloc(ps->pids, (ps->npids + 1) * sizeof(*pids));

		if (!pids)
			return NULL;
		ps->pids = pids;
		ps->pids[ps->npids++] = pid;
	}
	return ps;
}

static int add_weight(struct process_samples *ps, uint32_t idx, uint64_t count)
{
	if (idx >= ps->cap) {
		size_t cap = ps->cap ? ps->cap * 2 : 64;
		uint64_t *w = realloc(ps->weights, cap * sizeof(*w));

		if (!w)
			return -1;
		memset(w + ps->cap, 0, (cap - ps->cap) * sizeof(*w));
		ps->weights = w;
		ps->cap = cap;
	}
	ps->weights[idx] += count;
	ps->total += count;
	return 0;
}

static int cmp_pid(const void *a, const void *b)
{
	uint32_t x = ((const struct process_samples *)a)->pid;
	uint32_t y = ((const struct process_samples *)b)->pid;

	return (x > y) - (x < y);
}

static void put_profile(struct strbuf *sb, const struct profile *p,
			const struct process_samples *ps, bool first)
{
	struct strbuf name = STRBUF_INIT;

	if (!first)
		sb_putc(sb, ',');
	if (ps->npids > 1)
		sb_printf(&name, "%s (pid %u, %zu processes)", profile_program_comm(p, ps->pid),
			  ps->pid, ps->npids);
	else
		sb_printf(&name, "%s (pid %u)", profile_comm(p, ps->pid), ps->pid);
	sb_puts(sb, "\n{\"type\":\"sampled\",\"name\":");
	json_put_string(sb, sb_str(&name), name.len);
	/* Off-CPU and wall weights are nanoseconds; CPU ones sample counts. */
	sb_printf(sb, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":%llu,\"samples\":[",
		  profile_unit_ns(p) ? "nanoseconds" : "none",
		  (unsigned long long)ps->total);
	for (uint32_t i = 0; i < ps->stacks.n; i++) {
		const uint32_t *ix = (const uint32_t *)ps->stacks.keys[i];
		size_t n = ps->stacks.lens[i] / sizeof(*ix);

		sb_puts(sb, i ? ",[" : "[");
		for (size_t k = 0; k < n; k++)
			sb_printf(sb, k ? ",%u" : "%u", ix[k]);
		sb_putc(sb, ']');
	}
	sb_puts(sb, "],\"weights\":[");
	for (uint32_t i = 0; i < ps->stacks.n; i++)
		sb_printf(sb, i ? ",%llu" : "%llu", (unsigned long long)ps->weights[i]);
	sb_puts(sb, "]}");
	sb_free(&name);
}

int export_speedscope(FILE *out, const struct profile *p, const struct export_opts *opts)
{
	struct export_opts o;
	struct ss_frames *frames = NULL;
	struct strbuf json = STRBUF_INIT;
	struct process_samples *procs = NULL;
	size_t nprocs = 0;
	int err = -1;

	if (export_opts_norm(&o, opts))
		return -1;
	if (!(frames = ss_frames_new()))
		goto cleanup;
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct sample *s = &p->samples[i];
		struct process_samples *ps;
		const uint32_t *stack;
		uint32_t n, idx;

		if (!s->count)
			continue;
		ps = process_of(&procs, &nprocs, p, s->pid, o.per_process);
		if (!ps || !(stack = ss_frames_stack(frames, p, s, &o, &n)))
			goto cleanup;
		idx = keytab_intern(&ps->stacks, stack, n * sizeof(*stack), NULL);
		if (add_weight(ps, idx, s->count))
			goto cleanup;
	}
	if (nprocs)
		qsort(procs, nprocs, sizeof(*procs), cmp_pid);

	speedscope_head(&json, &o, frames);
	for (size_t i = 0; i < nprocs; i++)
		put_profile(&json, p, &procs[i], i == 0);
	/* An empty profile still opens: one process with no samples. */
	if (!nprocs)
		sb_puts(&json, "\n{\"type\":\"sampled\",\"name\":\"no samples\",\"unit\":\"none\","
			"\"startValue\":0,\"endValue\":0,\"samples\":[],\"weights\":[]}");
	sb_puts(&json, "]}\n");
	fwrite(sb_str(&json), 1, json.len, out);
	err = export_finish(out);
cleanup:
	for (size_t i = 0; i < nprocs; i++) {
		keytab_free(&procs[i].stacks);
		free(procs[i].weights);
		free(procs[i].pids);
	}
	free(procs);
	ss_frames_free(frames);
	sb_free(&json);
	return err;
}
