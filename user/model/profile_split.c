/* Per-process profiles out of a multi-process one. */
#include "model/profile_split.h"

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

struct profile *profile_of_pid(const struct profile *p, uint32_t pid)
{
	/* Old frame id -> the copy interned in the new profile. */
	const struct frame_sym **map = calloc(profile_nframes(p) + 1, sizeof(*map));
	const struct frame_sym **frames = NULL;
	struct profile *out = profile_new(p->hz);
	size_t cap = 0;

	if (!map || !out)
		goto fail;
	out->event = p->event;
	out->start_ns = p->start_ns;
	out->duration_ns = p->duration_ns;
	profile_set_comm(out, pid, profile_comm(p, pid));
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct sample *s = &p->samples[i];
		struct sample copy = *s;

		if (s->pid != pid || !s->count)
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
