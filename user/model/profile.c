// SPDX-License-Identifier: MIT
/* The profile model: interned strings and frames, merged sample classes. */
#include "model/profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashfn.h"
#include "base/hashidx.h"
#include "base/xalloc.h"
#include "model/timeline.h"

/* Interned strings: each distinct string once, compared by pointer after. */
struct str_pool {
	char **strs;
	uint32_t n, cap;
	struct hashidx idx;
};

/* Merged sample classes: p->samples, indexed by class. */
struct sample_index {
	struct hashidx idx;
};

struct frame_table {
	struct frame_sym **byid;	/* byid[id - 1] */
	uint32_t n, cap;
	struct hashidx idx;		/* over byid */
};

/* Appends v to the array *arr of *n entries with room for *cap. */
#define ARRAY_PUSH(arr, n, cap, v) do {						\
	if ((n) == (cap)) {							\
		(cap) = (cap) ? (cap) * 2 : 64;					\
		(arr) = xrealloc((arr), (cap) * sizeof(*(arr)));		\
	}									\
	(arr)[(n)++] = (v);							\
} while (0)

struct profile *profile_new(unsigned hz)
{
	struct profile *p = xcalloc(1, sizeof(*p));

	p->hz = hz;
	p->strings = xcalloc(1, sizeof(*p->strings));
	p->frames = xcalloc(1, sizeof(*p->frames));
	p->index = xcalloc(1, sizeof(*p->index));
	return p;
}

struct profile *profile_new_like(const struct profile *like)
{
	struct profile *p = profile_new(like->hz);

	p->event = like->event;
	p->alloc_every = like->alloc_every;
	p->alloc_duty = like->alloc_duty;
	p->offcpu_rate = like->offcpu_rate;
	return p;
}

uint64_t profile_alloc_bytes(const struct profile *p)
{
	if (!(p->alloc_duty > 0) || p->alloc_duty >= 1)
		return p->alloc_every;
	return (uint64_t)((double)p->alloc_every / p->alloc_duty + 0.5);
}

void profile_free(struct profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nsamples; i++)
		free(p->samples[i].frames);
	free(p->samples);
	for (uint32_t i = 0; i < p->strings->n; i++)
		free(p->strings->strs[i]);
	free(p->strings->strs);
	hashidx_free(&p->strings->idx);
	free(p->strings);
	for (uint32_t i = 0; i < p->frames->n; i++)
		free(p->frames->byid[i]);
	free(p->frames->byid);
	hashidx_free(&p->frames->idx);
	free(p->frames);
	hashidx_free(&p->index->idx);
	free(p->index);
	free(p->procs);
	timeline_free(p->timeline);
	free(p);
}

static uint64_t str_hash(const char *s)
{
	return hash_bytes(s, strlen(s), 0);
}

static uint64_t pool_entry_hash(const void *ctx, uint32_t e)
{
	return str_hash(((const struct str_pool *)ctx)->strs[e]);
}

static bool pool_entry_match(const void *ctx, uint32_t e, const void *key)
{
	return !strcmp(((const struct str_pool *)ctx)->strs[e], key);
}

static const struct hashidx_ops pool_ops = { pool_entry_hash, pool_entry_match };

const char *profile_str(struct profile *p, const char *s)
{
	struct str_pool *sp = p->strings;
	uint32_t e;
	size_t hint;

	if (!s)
		return NULL;
	e = hashidx_find(&sp->idx, &pool_ops, sp, str_hash(s), s, &hint);
	if (e != HASHIDX_NONE)
		return sp->strs[e];
	hashidx_add(&sp->idx, hint, sp->n);
	ARRAY_PUSH(sp->strs, sp->n, sp->cap, xstrdup(s));
	return sp->strs[sp->n - 1];
}

/* Strings are interned, so frames compare and hash by pointer. */
static uint64_t frame_hash(const struct frame_sym *f)
{
	uint64_t h = hash_u64((uint64_t)f->kind, 0);

	h = hash_u64((uint64_t)(uintptr_t)f->name, h);
	h = hash_u64((uint64_t)(uintptr_t)f->chunk, h);
	h = hash_u64((uint64_t)(uint32_t)f->firstline, h);
	h = hash_u64((uint64_t)(uint32_t)f->line, h);
	h = hash_u64(f->cfunc, h);
	h = hash_u64((uint64_t)(uint32_t)f->ffid, h);
	h = hash_u64((uint64_t)(uintptr_t)f->cname, h);
	h = hash_u64((uint64_t)(uintptr_t)f->map_file, h);
	h = hash_u64(f->map_start, h);
	h = hash_u64((uint64_t)(uintptr_t)f->csym, h);
	return hash_u64((uint64_t)(uintptr_t)f->ffname, h);
}

static bool frame_equal(const struct frame_sym *a, const struct frame_sym *b)
{
	return a->kind == b->kind && a->name == b->name && a->chunk == b->chunk &&
	       a->firstline == b->firstline && a->line == b->line &&
	       a->cfunc == b->cfunc && a->ffid == b->ffid && a->ffname == b->ffname &&
	       a->cname == b->cname && a->map_file == b->map_file &&
	       a->map_build_id == b->map_build_id && a->map_start == b->map_start &&
	       a->map_limit == b->map_limit && a->map_offset == b->map_offset &&
	       a->csym == b->csym;
}

static uint64_t frame_entry_hash(const void *ctx, uint32_t e)
{
	return frame_hash(((const struct frame_table *)ctx)->byid[e]);
}

static bool frame_entry_match(const void *ctx, uint32_t e, const void *key)
{
	return frame_equal(((const struct frame_table *)ctx)->byid[e], key);
}

static const struct hashidx_ops frame_ops = { frame_entry_hash, frame_entry_match };

const struct frame_sym *profile_frame(struct profile *p, const struct frame_sym *in)
{
	struct frame_table *ft = p->frames;
	struct frame_sym f = *in, *copy;
	uint32_t e;
	size_t hint;

	f.id = 0;
	f.name = profile_str(p, in->name);
	f.chunk = profile_str(p, in->chunk);
	f.ffname = profile_str(p, in->ffname);
	f.cname = profile_str(p, in->cname);
	f.map_file = profile_str(p, in->map_file);
	f.map_build_id = profile_str(p, in->map_build_id);
	f.csym = profile_str(p, in->csym);
	e = hashidx_find(&ft->idx, &frame_ops, ft, frame_hash(&f), &f, &hint);
	if (e != HASHIDX_NONE)
		return ft->byid[e];
	hashidx_add(&ft->idx, hint, ft->n);
	copy = xcalloc(1, sizeof(*copy));
	*copy = f;
	copy->id = ft->n + 1;
	ARRAY_PUSH(ft->byid, ft->n, ft->cap, copy);
	return copy;
}

uint32_t profile_nframes(const struct profile *p)
{
	return p->frames->n;
}

const struct frame_sym *profile_frame_at(const struct profile *p, uint32_t id)
{
	return id >= 1 && id <= p->frames->n ? p->frames->byid[id - 1] : NULL;
}

static bool sample_same_class(const struct sample *a, const struct sample *b)
{
	return a->pid == b->pid && a->tid == b->tid && a->vmstate == b->vmstate &&
	       a->flags == b->flags && a->zone == b->zone && a->req == b->req &&
	       a->trace_start == b->trace_start && a->inlined == b->inlined &&
	       a->nframes == b->nframes &&
	       (!a->nframes || !memcmp(a->frames, b->frames, a->nframes * sizeof(*a->frames)));
}

static uint64_t sample_hash(const struct sample *s)
{
	uint64_t h = hash_u64(((uint64_t)s->pid << 32) | s->tid, 0);

	h = hash_u64(((uint64_t)(uint32_t)s->vmstate << 32) | s->flags, h);
	h = hash_u64((uint64_t)(uintptr_t)s->zone, h);
	h = hash_u64((uint64_t)(uintptr_t)s->req, h);
	h = hash_u64((uint64_t)(uintptr_t)s->trace_start, h);
	h = hash_u64((uint64_t)(uintptr_t)s->inlined, h);
	return hash_bytes(s->frames, s->nframes * sizeof(*s->frames), h);
}

static uint64_t sample_entry_hash(const void *ctx, uint32_t e)
{
	return sample_hash(&((const struct profile *)ctx)->samples[e]);
}

static bool sample_entry_match(const void *ctx, uint32_t e, const void *key)
{
	return sample_same_class(&((const struct profile *)ctx)->samples[e], key);
}

static const struct hashidx_ops sample_ops = { sample_entry_hash, sample_entry_match };

const char *profile_event_name(enum profile_event e)
{
	switch (e) {
	case PROFILE_OFFCPU:
		return "off-cpu";
	case PROFILE_WALL:
		return "wall";
	case PROFILE_ALLOC:
		return "alloc";
	case PROFILE_CPU:
		break;
	}
	return "cpu";
}

int profile_add(struct profile *p, const struct sample *in)
{
	struct sample_index *ix = p->index;
	struct sample s = *in, *dst;
	uint32_t e;
	size_t hint;

	/* In a CPU profile each sample is one event. */
	if (!s.events && !profile_unit_ns(p))
		s.events = s.count;
	s.zone = profile_str(p, in->zone);
	s.group = profile_str(p, in->group);
	s.req = profile_str(p, in->req);
	s.trace_start = profile_str(p, in->trace_start);
	s.inlined = profile_str(p, in->inlined);
	s.time_ns = 0;
	e = hashidx_find(&ix->idx, &sample_ops, p, sample_hash(&s), &s, &hint);
	if (in->time_ns)
		timeline_add(p, e != HASHIDX_NONE ? e : (uint32_t)p->nsamples, in->time_ns,
			     s.count);
	if (e != HASHIDX_NONE) {
		p->samples[e].count += s.count;
		p->samples[e].events += s.events;
		p->total += s.count;
		return 0;
	}
	hashidx_add(&ix->idx, hint, (uint32_t)p->nsamples);
	if (p->nsamples == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 64;
		p->samples = xrealloc(p->samples, p->cap * sizeof(*p->samples));
	}
	dst = &p->samples[p->nsamples];
	*dst = s;
	dst->frames = xcalloc(s.nframes, sizeof(*dst->frames));
	if (s.nframes)
		memcpy(dst->frames, s.frames, s.nframes * sizeof(*s.frames));
	p->nsamples++;
	p->total += s.count;
	return 0;
}

void profile_set_comm(struct profile *p, uint32_t pid, const char *comm)
{
	struct process_info *pi = NULL;

	for (size_t i = 0; i < p->nprocs; i++)
		if (p->procs[i].pid == pid)
			pi = &p->procs[i];
	if (!pi) {
		p->procs = xrealloc(p->procs, (p->nprocs + 1) * sizeof(*p->procs));
		pi = &p->procs[p->nprocs++];
		memset(pi, 0, sizeof(*pi));
		pi->pid = pid;
	}
	snprintf(pi->comm, sizeof(pi->comm), "%s", comm);
}

void profile_set_container(struct profile *p, uint32_t pid, const struct proc_container *c)
{
	for (size_t i = 0; i < p->nprocs; i++) {
		struct proc_container *dst = &p->procs[i].ctr;

		if (p->procs[i].pid != pid)
			continue;
		dst->id = profile_str(p, c->id);
		dst->name = profile_str(p, c->name);
		dst->pod_uid = profile_str(p, c->pod_uid);
		dst->pod_name = profile_str(p, c->pod_name);
		dst->pod_namespace = profile_str(p, c->pod_namespace);
		dst->labels = profile_str(p, c->labels);
		return;
	}
}

const struct proc_container *profile_container(const struct profile *p, uint32_t pid)
{
	for (size_t i = 0; i < p->nprocs; i++) {
		const struct proc_container *c = &p->procs[i].ctr;

		if (p->procs[i].pid == pid)
			return c->id || c->name || c->pod_uid || c->labels ? c : NULL;
	}
	return NULL;
}

const char *profile_comm(const struct profile *p, uint32_t pid)
{
	for (size_t i = 0; i < p->nprocs; i++)
		if (p->procs[i].pid == pid)
			return p->procs[i].comm;
	return "?";
}

static int section_cmp(const void *a, const void *b)
{
	const struct profile_section *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

uint32_t profile_program_pid(const struct profile *p, uint32_t pid)
{
	for (size_t i = 0; i < p->nprocs; i++)
		if (p->procs[i].pid == pid)
			return p->procs[i].program ? p->procs[i].program : pid;
	return pid;
}

void profile_set_program(struct profile *p, uint32_t pid, uint32_t root)
{
	for (size_t i = 0; i < p->nprocs; i++) {
		if (p->procs[i].pid == pid) {
			p->procs[i].program = root == pid ? 0 : root;
			return;
		}
	}
	profile_set_comm(p, pid, "?");
	p->procs[p->nprocs - 1].program = root == pid ? 0 : root;
}

const char *profile_program_comm(const struct profile *p, uint32_t root)
{
	for (size_t i = 0; i < p->nprocs; i++)
		if (p->procs[i].pid == root || p->procs[i].program == root)
			return p->procs[i].comm;
	return "?";
}

/* The section key of s: its program's first pid, its pid, or pid+tid. */
static void section_key(const struct profile *p, enum section_by by, const struct sample *s,
			struct profile_section *out)
{
	out->by = by;
	out->pid = by == SECTION_PROGRAM ? profile_program_pid(p, s->pid) : s->pid;
	out->tid = by == SECTION_THREAD ? s->tid : 0;
}

size_t profile_sections(const struct profile *p, enum section_by by,
			struct profile_section **out)
{
	struct profile_section *secs = xcalloc(p->nsamples + 1, sizeof(*secs));
	uint32_t *pids = xcalloc(p->nsamples + 1, sizeof(*pids));
	size_t n = 0;

	for (size_t i = 0; i < p->nsamples; i++)
		section_key(p, by, &p->samples[i], &secs[n++]);
	qsort(secs, n, sizeof(*secs), section_cmp);
	if (n) {
		size_t w = 1;

		for (size_t i = 1; i < n; i++)
			if (section_cmp(&secs[i], &secs[w - 1]))
				secs[w++] = secs[i];
		n = w;
	}
	/* A program's processes: distinct pids of its samples. */
	for (size_t k = 0; k < n && by == SECTION_PROGRAM; k++) {
		size_t np = 0;

		for (size_t i = 0; i < p->nsamples; i++) {
			uint32_t pid = p->samples[i].pid;
			size_t j = 0;

			if (profile_program_pid(p, pid) != secs[k].pid)
				continue;
			while (j < np && pids[j] != pid)
				j++;
			if (j == np)
				pids[np++] = pid;
			if (!secs[k].member || pid < secs[k].member)
				secs[k].member = pid;
		}
		secs[k].npids = (uint32_t)np;
	}
	free(pids);
	if (n <= 1 && by != SECTION_THREAD) {
		/* One program: jit.p's own layout, without a header. */
		memset(secs, 0, sizeof(*secs));
		secs[0].all = true;
		secs[0].by = by;
		n = 1;
	}
	*out = secs;
	return n;
}

bool profile_section_has(const struct profile *p, const struct profile_section *sec,
			 const struct sample *s)
{
	struct profile_section key;

	if (sec->all)
		return true;
	if (sec->by != SECTION_PROGRAM)
		return s->pid == sec->pid && (sec->by != SECTION_THREAD || s->tid == sec->tid);
	section_key(p, sec->by, s, &key);
	return key.pid == sec->pid;
}

void profile_section_title(const struct profile *p, const struct profile_section *sec,
			   char *buf, size_t len)
{
	if (sec->by == SECTION_THREAD)
		snprintf(buf, len, "=== PID %u TID %u (%s) ===", sec->pid, sec->tid,
			 profile_comm(p, sec->pid));
	else if (sec->by == SECTION_PROGRAM && sec->npids > 1)
		snprintf(buf, len, "=== PID %u (%s), %u processes ===", sec->pid,
			 profile_program_comm(p, sec->pid), sec->npids);
	else if (sec->by == SECTION_PROGRAM && sec->member)
		snprintf(buf, len, "=== PID %u (%s) ===", sec->member,
			 profile_comm(p, sec->member));
	else
		snprintf(buf, len, "=== PID %u (%s) ===", sec->pid, profile_comm(p, sec->pid));
}

bool proc_label_next(const char **at, char *key, size_t keylen, char *value, size_t valuelen)
{
	const char *l = *at, *eq, *nl;

	if (!l || !*l || !(eq = strchr(l, '=')) || !(nl = strchr(eq, '\n')))
		return false;
	snprintf(key, keylen, "%.*s", (int)(eq - l), l);
	snprintf(value, valuelen, "%.*s", (int)(nl - eq - 1), eq + 1);
	*at = nl + 1;
	return true;
}
