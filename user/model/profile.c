/* The profile model: interned strings and frames, merged sample classes. */
#include "model/profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashfn.h"
#include "base/xalloc.h"

struct str_pool {
	char **slots;		/* open addressing, power-of-two size */
	size_t n, cap;
};

struct sample_index {
	uint32_t *slots;	/* sample index + 1, 0 = empty */
	size_t nslots;
};

struct frame_table {
	struct frame_sym **byid;	/* byid[id - 1] */
	uint32_t n, cap;
	uint32_t *slots;		/* ids, 0 = empty */
	size_t nslots;
};

struct profile *profile_new(unsigned hz)
{
	struct profile *p = xcalloc(1, sizeof(*p));

	p->hz = hz;
	p->strings = xcalloc(1, sizeof(*p->strings));
	p->frames = xcalloc(1, sizeof(*p->frames));
	p->index = xcalloc(1, sizeof(*p->index));
	return p;
}

void profile_free(struct profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nsamples; i++)
		free(p->samples[i].frames);
	free(p->samples);
	for (size_t i = 0; i < p->strings->cap; i++)
		free(p->strings->slots[i]);
	free(p->strings->slots);
	free(p->strings);
	for (uint32_t i = 0; i < p->frames->n; i++)
		free(p->frames->byid[i]);
	free(p->frames->byid);
	free(p->frames->slots);
	free(p->frames);
	free(p->index->slots);
	free(p->index);
	free(p->procs);
	free(p);
}

static void pool_rehash(struct str_pool *sp)
{
	size_t cap = sp->cap ? sp->cap * 2 : 256;
	char **slots = xcalloc(cap, sizeof(*slots));

	for (size_t i = 0; i < sp->cap; i++) {
		char *s = sp->slots[i];
		size_t j;

		if (!s)
			continue;
		j = hash_bytes(s, strlen(s), 0) & (cap - 1);
		while (slots[j])
			j = (j + 1) & (cap - 1);
		slots[j] = s;
	}
	free(sp->slots);
	sp->slots = slots;
	sp->cap = cap;
}

const char *profile_str(struct profile *p, const char *s)
{
	struct str_pool *sp = p->strings;
	size_t len, j;

	if (!s)
		return NULL;
	if ((sp->n + 1) * 2 > sp->cap)
		pool_rehash(sp);
	len = strlen(s);
	j = hash_bytes(s, len, 0) & (sp->cap - 1);
	while (sp->slots[j]) {
		if (!strcmp(sp->slots[j], s))
			return sp->slots[j];
		j = (j + 1) & (sp->cap - 1);
	}
	sp->slots[j] = xcalloc(len + 1, 1);
	memcpy(sp->slots[j], s, len);
	sp->n++;
	return sp->slots[j];
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
	return hash_u64((uint64_t)(uintptr_t)f->ffname, h);
}

static bool frame_equal(const struct frame_sym *a, const struct frame_sym *b)
{
	return a->kind == b->kind && a->name == b->name && a->chunk == b->chunk &&
	       a->firstline == b->firstline && a->line == b->line &&
	       a->cfunc == b->cfunc && a->ffid == b->ffid && a->ffname == b->ffname;
}

static void frames_rehash(struct frame_table *ft)
{
	size_t nslots = ft->nslots ? ft->nslots * 2 : 256;
	uint32_t *slots = xcalloc(nslots, sizeof(*slots));

	for (uint32_t id = 1; id <= ft->n; id++) {
		size_t j = frame_hash(ft->byid[id - 1]) & (nslots - 1);

		while (slots[j])
			j = (j + 1) & (nslots - 1);
		slots[j] = id;
	}
	free(ft->slots);
	ft->slots = slots;
	ft->nslots = nslots;
}

const struct frame_sym *profile_frame(struct profile *p, const struct frame_sym *in)
{
	struct frame_table *ft = p->frames;
	struct frame_sym f = *in, *copy;
	size_t j;

	f.id = 0;
	f.name = profile_str(p, in->name);
	f.chunk = profile_str(p, in->chunk);
	f.ffname = profile_str(p, in->ffname);
	if ((ft->n + 1) * 2 > ft->nslots)
		frames_rehash(ft);
	j = frame_hash(&f) & (ft->nslots - 1);
	while (ft->slots[j]) {
		copy = ft->byid[ft->slots[j] - 1];
		if (frame_equal(copy, &f))
			return copy;
		j = (j + 1) & (ft->nslots - 1);
	}
	if (ft->n == ft->cap) {
		ft->cap = ft->cap ? ft->cap * 2 : 256;
		ft->byid = xrealloc(ft->byid, ft->cap * sizeof(*ft->byid));
	}
	copy = xcalloc(1, sizeof(*copy));
	*copy = f;
	copy->id = ++ft->n;
	ft->byid[copy->id - 1] = copy;
	ft->slots[j] = copy->id;
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
	       a->flags == b->flags && a->zone == b->zone &&
	       a->trace_start == b->trace_start &&
	       a->nframes == b->nframes &&
	       (!a->nframes || !memcmp(a->frames, b->frames, a->nframes * sizeof(*a->frames)));
}

static uint64_t sample_hash(const struct sample *s)
{
	uint64_t h = hash_u64(((uint64_t)s->pid << 32) | s->tid, 0);

	h = hash_u64(((uint64_t)(uint32_t)s->vmstate << 32) | s->flags, h);
	h = hash_u64((uint64_t)(uintptr_t)s->zone, h);
	h = hash_u64((uint64_t)(uintptr_t)s->trace_start, h);
	return hash_bytes(s->frames, s->nframes * sizeof(*s->frames), h);
}

static void index_rehash(struct profile *p)
{
	struct sample_index *ix = p->index;
	size_t nslots = ix->nslots ? ix->nslots * 2 : 256;
	uint32_t *slots = xcalloc(nslots, sizeof(*slots));

	for (size_t i = 0; i < p->nsamples; i++) {
		size_t j = sample_hash(&p->samples[i]) & (nslots - 1);

		while (slots[j])
			j = (j + 1) & (nslots - 1);
		slots[j] = (uint32_t)i + 1;
	}
	free(ix->slots);
	ix->slots = slots;
	ix->nslots = nslots;
}

int profile_add(struct profile *p, const struct sample *in)
{
	struct sample_index *ix = p->index;
	struct sample s = *in, *dst;
	size_t j;

	s.zone = profile_str(p, in->zone);
	s.trace_start = profile_str(p, in->trace_start);
	if ((p->nsamples + 1) * 2 > ix->nslots)
		index_rehash(p);
	j = sample_hash(&s) & (ix->nslots - 1);
	while (ix->slots[j]) {
		dst = &p->samples[ix->slots[j] - 1];
		if (sample_same_class(dst, &s)) {
			dst->count += s.count;
			p->total += s.count;
			return 0;
		}
		j = (j + 1) & (ix->nslots - 1);
	}
	if (p->nsamples == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 64;
		p->samples = xrealloc(p->samples, p->cap * sizeof(*p->samples));
	}
	dst = &p->samples[p->nsamples];
	*dst = s;
	dst->frames = xcalloc(s.nframes, sizeof(*dst->frames));
	if (s.nframes)
		memcpy(dst->frames, s.frames, s.nframes * sizeof(*s.frames));
	ix->slots[j] = (uint32_t)++p->nsamples;
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
		pi->pid = pid;
		pi->program = 0;
	}
	snprintf(pi->comm, sizeof(pi->comm), "%s", comm);
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
