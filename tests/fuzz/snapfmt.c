// SPDX-License-Identifier: MIT
/* Snapshot encoding and a parser that survives any input. */
#include "snapfmt.h"

#include <stdlib.h>
#include <string.h>

struct reader {
	const uint8_t *p, *end;
};

static int take(struct reader *r, void *out, size_t n)
{
	if ((size_t)(r->end - r->p) < n)
		return -1;
	memcpy(out, r->p, n);
	r->p += n;
	return 0;
}

int snap_parse(const uint8_t *data, size_t len, struct snapshot *s)
{
	struct reader r = { data, data + len };
	uint8_t head[8];
	int nstacks, nregions;

	memset(s, 0, sizeof(*s));
	if (take(&r, head, sizeof(head)) || memcmp(head, "LBPS", 4) || head[4] != 2 ||
	    take(&r, &s->gg, 8) || take(&r, &s->g, 8))
		return -1;
	s->layout = head[5];
	nstacks = head[6] < SNAP_MAX_STACKS ? head[6] : SNAP_MAX_STACKS;
	nregions = head[7];
	for (int i = 0; i < nstacks; i++) {
		struct snap_stack *st = &s->stacks[i];
		uint16_t nframes;
		int16_t vmstate;

		if (take(&r, &nframes, 2) || take(&r, &vmstate, 2))
			return 0;
		st->vmstate = vmstate;
		/* More frames than the walker records are read and dropped. */
		for (uint32_t f = 0; f < nframes; f++) {
			struct lua_frame fr;

			if (take(&r, &fr.id, 8) || take(&r, &fr.pc_off, 4) || take(&r, &fr.fp, 4))
				return 0;
			if (f < LBP_MAX_FRAMES)
				st->frames[st->nframes++] = fr;
		}
		s->nstacks++;
	}
	for (int i = 0; i < nregions && i < SNAP_MAX_REGIONS; i++) {
		uint64_t addr;
		uint32_t n;

		if (take(&r, &addr, 8) || take(&r, &n, 4))
			return 0;
		if ((size_t)(r.end - r.p) < n)
			n = (uint32_t)(r.end - r.p);	/* keep a truncated region */
		s->regions[i] = (struct mem_region){ addr, r.p, n };
		r.p += n;
		s->nregions++;
	}
	return 0;
}

struct writer {
	uint8_t *buf;
	size_t len, cap;
	int err;
};

static void put(struct writer *w, const void *p, size_t n)
{
	if (w->err)
		return;
	if (w->len + n > w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 4096;
		uint8_t *b;

		while (cap < w->len + n)
			cap *= 2;
		b = realloc(w->buf, cap);
		if (!b) {
			w->err = -1;
			return;
		}
		w->buf = b;
		w->cap = cap;
	}
	memcpy(w->buf + w->len, p, n);
	w->len += n;
}

int snap_encode(const struct snapshot *s, uint8_t **buf, size_t *len)
{
	struct writer w = { 0 };
	uint8_t head[8] = { 'L', 'B', 'P', 'S', 2, (uint8_t)s->layout, (uint8_t)s->nstacks,
			    (uint8_t)s->nregions };

	put(&w, head, sizeof(head));
	put(&w, &s->gg, 8);
	put(&w, &s->g, 8);
	for (int i = 0; i < s->nstacks; i++) {
		const struct snap_stack *st = &s->stacks[i];
		uint16_t nframes = (uint16_t)st->nframes;
		int16_t vmstate = (int16_t)st->vmstate;

		put(&w, &nframes, 2);
		put(&w, &vmstate, 2);
		for (uint32_t f = 0; f < st->nframes; f++) {
			put(&w, &st->frames[f].id, 8);
			put(&w, &st->frames[f].pc_off, 4);
			put(&w, &st->frames[f].fp, 4);
		}
	}
	for (int i = 0; i < s->nregions; i++) {
		uint32_t n = (uint32_t)s->regions[i].len;

		put(&w, &s->regions[i].addr, 8);
		put(&w, &n, 4);
		put(&w, s->regions[i].data, n);
	}
	if (w.err) {
		free(w.buf);
		return -1;
	}
	*buf = w.buf;
	*len = w.len;
	return 0;
}
