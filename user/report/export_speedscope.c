/* speedscope's own JSON file format: shared frames, and one "sampled"
 * profile per process whose samples are root-first frame index lists. */
#include "report/export.h"

#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "report/export_stack.h"
#include "model/frame_fmt.h"

#define SPEEDSCOPE_SCHEMA "https://www.speedscope.app/file-format-schema.json"

/* A frame's identity is what speedscope shows: name, file and line. */
struct frame_key {
	struct strbuf name, file;
	int line;		/* -1: none */
};

static void frame_key_of(struct frame_key *k, const struct xframe *xf,
			 const struct profile *p, const struct sample *s,
			 const struct export_opts *o)
{
	const struct frame_sym *f = xf->sym;

	sb_reset(&k->name);
	sb_reset(&k->file);
	k->line = -1;
	xframe_put(&k->name, xf, p, s, o);
	if (xf->kind != XF_FRAME || f->kind != FRAME_LUA)
		return;
	export_chunk_file(&k->file, f);
	if (f->firstline >= 0)
		k->line = o->scope == 'l' && f->line >= 0 ? f->line : f->firstline;
}

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
	struct keytab frames = KEYTAB_INIT;	/* frame key -> shared frame index */
	struct strbuf json = STRBUF_INIT, frames_json = STRBUF_INIT, key = STRBUF_INIT;
	struct frame_key fk = { STRBUF_INIT, STRBUF_INIT, -1 };
	struct process_samples *procs = NULL;
	size_t nprocs = 0;
	struct xstack st = { 0 };
	uint32_t *stack = NULL;
	size_t stack_cap = 0;
	int err = -1;

	if (export_opts_norm(&o, opts))
		return -1;
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct sample *s = &p->samples[i];
		struct process_samples *ps;
		uint32_t idx;

		if (!s->count)
			continue;
		ps = process_of(&procs, &nprocs, p, s->pid, o.per_process);
		if (!ps)
			goto cleanup;
		xstack_build(&st, s, &o, 0);
		if (st.n >= stack_cap) {
			uint32_t *n = realloc(stack, (st.n + 1) * sizeof(*stack));

			if (!n)
				goto cleanup;
			stack = n;
			stack_cap = st.n + 1;
		}
		for (uint32_t k = 0; k < st.n; k++) {
			bool added;

			frame_key_of(&fk, &st.f[k], p, s, &o);
			sb_reset(&key);
			sb_putn(&key, sb_str(&fk.name), fk.name.len + 1);
			sb_putn(&key, sb_str(&fk.file), fk.file.len + 1);
			sb_printf(&key, "%d", fk.line);
			stack[k] = keytab_intern(&frames, key.buf, key.len, &added);
			if (!added)
				continue;
			sb_puts(&frames_json, stack[k] ? ",\n{\"name\":" : "\n{\"name\":");
			json_put_string(&frames_json, sb_str(&fk.name), fk.name.len);
			if (fk.file.len) {
				sb_puts(&frames_json, ",\"file\":");
				json_put_string(&frames_json, sb_str(&fk.file), fk.file.len);
			}
			if (fk.line >= 0)
				sb_printf(&frames_json, ",\"line\":%d", fk.line);
			sb_putc(&frames_json, '}');
		}
		idx = keytab_intern(&ps->stacks, stack, st.n * sizeof(*stack), NULL);
		if (add_weight(ps, idx, s->count))
			goto cleanup;
	}
	if (nprocs)
		qsort(procs, nprocs, sizeof(*procs), cmp_pid);

	sb_puts(&json, "{\"$schema\":\"" SPEEDSCOPE_SCHEMA "\",\n\"exporter\":\"luabpfprof\",\"name\":");
	json_put_cstr(&json, o.title ? o.title : "luabpfprof");
	sb_puts(&json, ",\"activeProfileIndex\":0,\n\"shared\":{\"frames\":[");
	sb_putn(&json, sb_str(&frames_json), frames_json.len);
	sb_puts(&json, "]},\n\"profiles\":[");
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
	free(stack);
	xstack_free(&st);
	keytab_free(&frames);
	sb_free(&json);
	sb_free(&frames_json);
	sb_free(&key);
	sb_free(&fk.name);
	sb_free(&fk.file);
	return err;
}
