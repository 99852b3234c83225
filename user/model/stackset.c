// SPDX-License-Identifier: MIT
/* Stacks read back from profiles (see stackset.h). */
#include "model/stackset.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

void stackset_init(struct stackset *s)
{
	memset(s, 0, sizeof(*s));
	strtab_intern(&s->str, "", 0);
}

void stackset_free(struct stackset *s)
{
	strtab_free(&s->str);
	free(s->frames);
	free(s->samples);
	memset(s, 0, sizeof(*s));
}

int stackset_add(struct stackset *s, const struct ss_frame *frames, uint32_t n,
		 const struct ss_sample *values)
{
	struct ss_sample *sm;

	if (n > SS_MAX_DEPTH || s->nframes + n > SS_MAX_FRAMES ||
	    s->total + values->count < s->total)
		return -1;
	if (s->nframes + n > s->capframes) {
		while (s->nframes + n > s->capframes)
			s->capframes = s->capframes ? 2 * s->capframes : 1024;
		s->frames = xrealloc(s->frames, s->capframes * sizeof(*s->frames));
	}
	if (s->nsamples == s->capsamples) {
		s->capsamples = s->capsamples ? 2 * s->capsamples : 256;
		s->samples = xrealloc(s->samples, s->capsamples * sizeof(*s->samples));
	}
	if (n)
		memcpy(s->frames + s->nframes, frames, n * sizeof(*frames));
	sm = &s->samples[s->nsamples++];
	*sm = *values;
	sm->at = s->nframes;
	sm->n = n;
	s->nframes += n;
	s->total += values->count;
	return 0;
}

void stackset_file_done(struct stackset *s, unsigned has)
{
	s->has = s->files ? s->has & has : has;
	s->files++;
}

void stackset_f_of_F(const char *F, const char **f, size_t *n)
{
	const char *colon = strchr(F, ':');
	const char *rest = colon ? colon + 1 : NULL;
	bool digits = rest && *rest;

	for (const char *p = rest; p && *p; p++)
		if (*p < '0' || *p > '9')
			digits = false;
	/* "[builtin:x]", "[unknown: why]": synthetic frames keep their name. */
	if (!colon || digits || *F == '[' || !*rest) {
		*f = F;
		*n = strlen(F);
		return;
	}
	*f = rest;
	*n = strlen(rest);
}
