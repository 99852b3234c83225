// SPDX-License-Identifier: MIT
/* Per-process profiles out of a multi-process one, and the CPU and
 * off-CPU halves of a wall profile. */
#include "model/profile_split.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

size_t profile_pids(const struct profile *p, uint32_t **pids)
{
	size_t n = 0, w = 0;

	*pids = NULL;
	if (!p->nsamples)
		return 0;
	*pids = malloc(p->nsamples * sizeof(**pids));
	if (!*pids)
		return 0;
	for (size_t i = 0; i < p->nsamples; i++)
		if (p->samples[i].count)
			(*pids)[n++] = p->samples[i].pid;
	qsort(*pids, n, sizeof(**pids), u32_cmp);
	for (size_t i = 0; i < n; i++)
		if (!w || (*pids)[i] != (*pids)[w - 1])
			(*pids)[w++] = (*pids)[i];
	return w;
}

/* Which samples a split keeps, and how each is weighed there. */
struct split {
	bool by_pid;
	uint32_t pid;
	bool by_event;
	enum profile_event event;	/* PROFILE_CPU or PROFILE_OFFCPU, of a wall profile */
};

static bool split_keeps(const struct split *sp, const struct sample *s)
{
	if (!s->count || (sp->by_pid && s->pid != sp->pid))
		return false;
	if (sp->by_event)
		return !!(s->flags & PSAMPLE_OFFCPU) == (sp->event == PROFILE_OFFCPU);
	return true;
}

static struct profile *split_copy(const struct profile *p, const struct split *sp)
{
	/* Old frame id -> the copy interned in the new profile. */
	const struct frame_sym **map = calloc(profile_nframes(p) + 1, sizeof(*map));
	const struct frame_sym **frames = NULL;
	struct profile *out = profile_new_like(p);
	size_t cap = 0;

	if (!map || !out)
		goto fail;
	out->event = sp->by_event ? sp->event : p->event;
	out->start_ns = p->start_ns;
	out->duration_ns = p->duration_ns;
	if (sp->by_pid) {
		profile_set_comm(out, sp->pid, profile_comm(p, sp->pid));
		if (profile_container(p, sp->pid))
			profile_set_container(out, sp->pid, profile_container(p, sp->pid));
	} else {
		for (size_t i = 0; i < p->nprocs; i++) {
			profile_set_comm(out, p->procs[i].pid, p->procs[i].comm);
			profile_set_container(out, p->procs[i].pid, &p->procs[i].ctr);
			if (p->procs[i].program)
				profile_set_program(out, p->procs[i].pid, p->procs[i].program);
		}
	}
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct sample *s = &p->samples[i];
		struct sample copy = *s;

		if (!split_keeps(sp, s))
			continue;
		if (s->nframes > cap) {
			const struct frame_sym **f = realloc(frames, s->nframes * sizeof(*f));

			if (!f)
				goto fail;
			frames = f;
			cap = s->nframes;
		}
		for (uint32_t j = 0; j < s->nframes; j++) {
			uint32_t id = s->frames[j]->id;

			if (!map[id])
				map[id] = profile_frame(out, s->frames[j]);
			frames[j] = map[id];
		}
		copy.frames = frames;
		/* A CPU profile counts samples; in a wall profile each weighed
		 * its period in nanoseconds. */
		if (sp->by_event && sp->event == PROFILE_CPU)
			copy.count = copy.events;
		if (profile_add(out, &copy))
			goto fail;
		if (s->flags & PSAMPLE_OFFCPU)
			continue;
		out->stats.samples += s->events;
		if (s->flags & PSAMPLE_HOST)
			out->stats.host += s->events;
	}
	free(map);
	free(frames);
	return out;
fail:
	free(map);
	free(frames);
	profile_free(out);
	return NULL;
}

struct profile *profile_of_pid(const struct profile *p, uint32_t pid)
{
	struct split sp = { .by_pid = true, .pid = pid };

	return split_copy(p, &sp);
}

struct profile *profile_of_event(const struct profile *p, enum profile_event e)
{
	struct split sp = { .by_event = true, .event = e };

	if (p->event != PROFILE_WALL || (e != PROFILE_CPU && e != PROFILE_OFFCPU))
		return NULL;
	return split_copy(p, &sp);
}
