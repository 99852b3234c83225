// SPDX-License-Identifier: MIT
/* Groups by code location (see group.h). */
#include "model/group.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

#define GROUP_KEY_MAX	128

/* Where the frameworks keep their plugins. */
#define GROUP_PRESETS(_)                                                     \
	_("kong", "kong/plugins/([^/]+)/")                                   \
	_("apisix", "apisix/plugins/([^/.]+)")

static const struct {
	const char *name, *pattern;
} presets[] = {
#define PRESET_ROW(name, pattern) { name, pattern },
	GROUP_PRESETS(PRESET_ROW)
#undef PRESET_ROW
};

struct group_rule {
	regex_t re;
	const char *pattern;
};

struct group_rule *group_new(const char *spec, char *err, size_t len)
{
	struct group_rule *g = xcalloc(1, sizeof(*g));
	int rc;

	g->pattern = spec;
	for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
		if (!strcmp(spec, presets[i].name))
			g->pattern = presets[i].pattern;
	rc = regcomp(&g->re, g->pattern, REG_EXTENDED);
	if (rc) {
		char msg[128];

		regerror(rc, &g->re, msg, sizeof(msg));
		snprintf(err, len, "--group '%s' is not a regular expression: %s", spec, msg);
		free(g);
		return NULL;
	}
	return g;
}

void group_free(struct group_rule *g)
{
	if (!g)
		return;
	regfree(&g->re);
	free(g);
}

const char *group_pattern(const struct group_rule *g)
{
	return g->pattern;
}

/* The key of one frame into buf, or NULL. */
static const char *frame_key(const struct group_rule *g, const struct frame_sym *f, char *buf,
			     size_t len)
{
	regmatch_t m[2];
	const char *path;
	size_t k = 0, n;

	if (f->kind != SYM_LUA || !f->chunk)
		return NULL;
	path = *f->chunk == '@' || *f->chunk == '=' ? f->chunk + 1 : f->chunk;
	if (regexec(&g->re, path, 2, m, 0))
		return NULL;
	if (g->re.re_nsub >= 1 && m[1].rm_so >= 0)
		k = 1;
	n = (size_t)(m[k].rm_eo - m[k].rm_so);
	if (!n || !len)
		return NULL;
	if (n >= len)
		n = len - 1;
	memcpy(buf, path + m[k].rm_so, n);
	buf[n] = 0;
	return buf;
}

const char *group_key(const struct group_rule *g, const struct frame_sym *const *frames,
		      size_t n, char *buf, size_t len)
{
	for (size_t i = n; i-- > 0;)
		if (frame_key(g, frames[i], buf, len))
			return buf;
	return NULL;
}

/* Each frame's key, computed once: frames are interned with dense ids. */
struct frame_keys {
	const char **key;	/* by id; "" none */
	uint32_t n;
};

static const char *cached_key(struct profile *p, const struct group_rule *g,
			      struct frame_keys *fk, const struct frame_sym *f)
{
	char buf[GROUP_KEY_MAX];

	if (f->id >= fk->n)
		return frame_key(g, f, buf, sizeof(buf)) ? profile_str(p, buf) : NULL;
	if (!fk->key[f->id]) {
		const char *k = frame_key(g, f, buf, sizeof(buf));

		fk->key[f->id] = k ? profile_str(p, k) : "";
	}
	return *fk->key[f->id] ? fk->key[f->id] : NULL;
}

void profile_group(struct profile *p, const struct group_rule *g)
{
	struct frame_keys fk = { NULL, profile_nframes(p) + 1 };

	fk.key = xcalloc(fk.n, sizeof(*fk.key));
	for (size_t i = 0; i < p->nsamples; i++) {
		struct sample *s = &p->samples[i];

		s->group = NULL;
		for (uint32_t j = s->nframes; j-- > 0 && !s->group;)
			s->group = cached_key(p, g, &fk, s->frames[j]);
	}
	free(fk.key);
}

int profile_group_spec(struct profile *p, const char *spec)
{
	char err[200];
	struct group_rule *g = group_new(spec, err, sizeof(err));

	if (!g)
		return -1;
	profile_group(p, g);
	group_free(g);
	return 0;
}
