// SPDX-License-Identifier: MIT
/* Notes on functions inlined without a snapshot (inlined_notes.h). */
#include "report/inlined_notes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/textsafe.h"
#include "base/xalloc.h"
#include "model/frame_fmt.h"

#define NOTES_MAX	10	/* traces named; the rest are counted */
#define WHERE_MAX	3	/* frames named per trace */

int inlined_frame_of(const struct sample *s)
{
	for (uint32_t i = 0; i < s->nframes; i++)
		if (s->frames[i] && s->frames[i]->kind == SYM_LUA)
			return (int)i;
	return -1;
}

/* One trace's note: its samples, and where they were counted ('F' keys:
 * one function whatever its line). */
#define WHERE_KEY	160
struct note {
	int32_t trace;
	const char *start, *inlined;	/* interned by the profile */
	uint64_t count;
	char where[WHERE_MAX][WHERE_KEY];
	uint64_t where_count[WHERE_MAX];
};

/* The samples of one trace number and list are one note: those drained
 * after the target exited have no start any more. */
static struct note *note_of(struct note **v, size_t *n, const struct sample *s)
{
	for (size_t i = 0; i < *n; i++)
		if ((*v)[i].trace == s->vmstate && (*v)[i].inlined == s->inlined) {
			if (!(*v)[i].start)
				(*v)[i].start = s->trace_start;
			return &(*v)[i];
		}
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	memset(&(*v)[*n], 0, sizeof(**v));
	(*v)[*n].trace = s->vmstate;
	(*v)[*n].start = s->trace_start;
	(*v)[*n].inlined = s->inlined;
	return &(*v)[(*n)++];
}

/* Adds a sample's weight to the function it was counted in; past
 * WHERE_MAX functions, one replaces the lightest kept when heavier. */
static void where_add(struct note *nt, const struct frame_sym *f, uint64_t count)
{
	struct strbuf key = STRBUF_INIT;
	int i = 0, light = 0;

	frame_put(&key, f, 'F', true);
	for (; i < WHERE_MAX && nt->where[i][0]; i++)
		if (!strcmp(nt->where[i], sb_str(&key))) {
			nt->where_count[i] += count;
			sb_free(&key);
			return;
		}
	if (i == WHERE_MAX) {
		for (i = 1, light = 0; i < WHERE_MAX; i++)
			if (nt->where_count[i] < nt->where_count[light])
				light = i;
		i = count > nt->where_count[light] ? light : -1;
	}
	if (i >= 0) {
		snprintf(nt->where[i], WHERE_KEY, "%s", sb_str(&key));
		nt->where_count[i] = count;
	}
	sb_free(&key);
}

static int note_cmp(const void *a, const void *b)
{
	const struct note *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->trace - y->trace;
}

/* Names the heaviest frames first, using up where_count. */
static void note_put(struct strbuf *sb, struct note *nt)
{
	bool several = strchr(nt->inlined, ',') != NULL;
	const char *sep = "";

	sb_printf(sb, "note: trace %d", (int)nt->trace);
	if (nt->start)
		sb_printf(sb, " (%s)", nt->start);
	sb_printf(sb, " inlined %s without a snapshot: %s time is counted in ", nt->inlined,
		  several ? "their" : "its");
	for (int i = 0; i < WHERE_MAX; i++) {
		int best = -1;

		for (int j = 0; j < WHERE_MAX; j++)
			if (nt->where[j][0] && nt->where_count[j] &&
			    (best < 0 || nt->where_count[j] > nt->where_count[best]))
				best = j;
		if (best < 0)
			break;
		sb_puts(sb, sep);
		sb_puts(sb, nt->where[best]);
		sb_printf(sb, " (%lld%%)",
			  (long long)((double)nt->where_count[best] * 100.0 / (double)nt->count + 0.5));
		nt->where_count[best] = 0;
		sep = ", ";
	}
	if (!*sep)
		sb_puts(sb, "the trace's frames");
}

void inlined_notes_write(FILE *out, const struct profile *p, const char *prefix)
{
	struct note *v = NULL;
	size_t n = 0;
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < p->nsamples; i++) {
		const struct sample *s = &p->samples[i];
		struct note *nt;
		int top;

		if (!s->inlined || s->vmstate < 1 || !s->count)
			continue;
		nt = note_of(&v, &n, s);
		nt->count += s->count;
		top = inlined_frame_of(s);
		if (top >= 0)
			where_add(nt, s->frames[top], s->count);
	}
	if (!n)
		return;	/* qsort of NULL is undefined even for 0 items */
	qsort(v, n, sizeof(*v), note_cmp);
	for (size_t i = 0; i < n && i < NOTES_MAX; i++) {
		sb_reset(&sb);
		note_put(&sb, &v[i]);
		fputs(prefix, out);
		text_fput(out, sb_str(&sb));	/* names from the target */
		fputc('\n', out);
	}
	if (n > NOTES_MAX)
		fprintf(out, "%snote: %zu more traces inlined functions without a snapshot\n",
			prefix, n - NOTES_MAX);
	sb_free(&sb);
	free(v);
}
