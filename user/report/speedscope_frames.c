// SPDX-License-Identifier: MIT
/* speedscope's shared frame table. */
#include "report/speedscope_frames.h"

#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "report/export_stack.h"

#define SPEEDSCOPE_SCHEMA "https://www.speedscope.app/file-format-schema.json"

struct ss_frames {
	struct keytab tab;		/* "name\0file\0line" -> index */
	struct strbuf json;		/* the members of "frames" */
	struct strbuf name, file, key;	/* scratch */
	struct xstack st;
	uint32_t *stack;
	size_t cap;
};

struct ss_frames *ss_frames_new(void)
{
	struct ss_frames *sf = calloc(1, sizeof(*sf));

	if (sf)
		sf->tab = (struct keytab)KEYTAB_INIT;
	return sf;
}

void ss_frames_free(struct ss_frames *sf)
{
	if (!sf)
		return;
	keytab_free(&sf->tab);
	sb_free(&sf->json);
	sb_free(&sf->name);
	sb_free(&sf->file);
	sb_free(&sf->key);
	xstack_free(&sf->st);
	free(sf->stack);
	free(sf);
}

/* A frame's identity is what speedscope shows: name, file and line. */
static uint32_t intern(struct ss_frames *sf, const struct xframe *xf, const struct profile *p,
		       const struct sample *s, const struct export_opts *o)
{
	const struct frame_sym *f = xf->sym;
	int line = -1;
	uint32_t i;
	bool added;

	sb_reset(&sf->name);
	sb_reset(&sf->file);
	xframe_put(&sf->name, xf, p, s, o);
	if (xf->kind == XF_FRAME && f->kind == SYM_LUA) {
		export_chunk_file(&sf->file, f);
		if (f->firstline >= 0)
			line = o->scope == 'l' && f->line >= 0 ? f->line : f->firstline;
	}
	sb_reset(&sf->key);
	sb_putn(&sf->key, sb_str(&sf->name), sf->name.len + 1);
	sb_putn(&sf->key, sb_str(&sf->file), sf->file.len + 1);
	sb_printf(&sf->key, "%d", line);
	i = keytab_intern(&sf->tab, sf->key.buf, sf->key.len, &added);
	if (!added)
		return i;
	sb_puts(&sf->json, i ? ",\n{\"name\":" : "\n{\"name\":");
	json_put_string(&sf->json, sb_str(&sf->name), sf->name.len);
	if (sf->file.len) {
		sb_puts(&sf->json, ",\"file\":");
		json_put_string(&sf->json, sb_str(&sf->file), sf->file.len);
	}
	if (line >= 0)
		sb_printf(&sf->json, ",\"line\":%d", line);
	sb_putc(&sf->json, '}');
	return i;
}

const uint32_t *ss_frames_stack(struct ss_frames *sf, const struct profile *p,
				const struct sample *s, const struct export_opts *o, uint32_t *n)
{
	xstack_build(&sf->st, s, o, 0);
	if (sf->st.n >= sf->cap) {
		uint32_t *st = realloc(sf->stack, (sf->st.n + 1) * sizeof(*st));

		if (!st)
			return NULL;
		sf->stack = st;
		sf->cap = sf->st.n + 1;
	}
	for (uint32_t k = 0; k < sf->st.n; k++)
		sf->stack[k] = intern(sf, &sf->st.f[k], p, s, o);
	*n = sf->st.n;
	return sf->stack;
}

const char *ss_frames_name(const struct ss_frames *sf, uint32_t i)
{
	return sf->tab.keys[i];
}

const char *ss_frames_file(const struct ss_frames *sf, uint32_t i)
{
	const char *k = sf->tab.keys[i];

	return k + strlen(k) + 1;
}

int ss_frames_line(const struct ss_frames *sf, uint32_t i)
{
	const char *file = ss_frames_file(sf, i);

	return atoi(file + strlen(file) + 1);
}

void speedscope_head(struct strbuf *sb, const struct export_opts *o, const struct ss_frames *sf)
{
	sb_puts(sb, "{\"$schema\":\"" SPEEDSCOPE_SCHEMA "\",\n\"exporter\":\"luabpfprof\",\"name\":");
	json_put_cstr(sb, o->title ? o->title : "luabpfprof");
	sb_puts(sb, ",\"activeProfileIndex\":0,\n\"shared\":{\"frames\":[");
	if (sf->json.len)
		sb_putn(sb, sf->json.buf, sf->json.len);
	sb_puts(sb, "]},\n\"profiles\":[");
}
