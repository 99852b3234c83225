// SPDX-License-Identifier: MIT
/* The content pprof and OTLP share: strings, functions, lines, mappings
 * and labels of the exported stacks (see pbframes.h). */
#include "report/pbframes.h"

#include <string.h>

#include "base/textsafe.h"
#include "report/view_jit.h"
#include "model/frame_fmt.h"
#include "model/reqlabel.h"

void pbframes_init(struct pbframes *f, const struct profile *p, const struct export_opts *o)
{
	memset(f, 0, sizeof(*f));
	pbframes_use(f, p, o);
	pbframes_cstr(f, "");	/* string_table[0] must be "" */
}

void pbframes_use(struct pbframes *f, const struct profile *p, const struct export_opts *o)
{
	f->p = p;
	f->o = o;
	f->name_scope = o->scope == 'l' ? 'F' : o->scope;
}

void pbframes_free(struct pbframes *f)
{
	keytab_free(&f->strings);
	sb_free(&f->text);
}

/* proto3 strings must be valid UTF-8 (protoc refuses others), and the
 * names are shown on terminals (go tool pprof -top, OTLP viewers):
 * control characters are escaped by the rule of base/textsafe.h. */
uint64_t pbframes_str(struct pbframes *f, const char *s, size_t n)
{
	struct strbuf valid = STRBUF_INIT, shown = STRBUF_INIT;
	uint64_t id;

	utf8_put_valid(&valid, s, n);
	text_put_escaped(&shown, sb_str(&valid), valid.len, "", TEXT_ESC_HEX);
	id = keytab_intern(&f->strings, sb_str(&shown), shown.len, NULL);
	sb_free(&valid);
	sb_free(&shown);
	return id;
}

uint64_t pbframes_cstr(struct pbframes *f, const char *s)
{
	return pbframes_str(f, s, strlen(s));
}

static uint64_t text_id(struct pbframes *f)
{
	return pbframes_str(f, sb_str(&f->text), f->text.len);
}

void pbframes_function(struct pbframes *f, const struct xframe *xf, const struct sample *s,
		       struct pb_function *out)
{
	memset(out, 0, sizeof(*out));
	sb_reset(&f->text);
	if (xf->kind != XF_FRAME) {
		xframe_put(&f->text, xf, f->p, s, f->o);
		out->name = out->system_name = text_id(f);
		return;
	}
	const struct frame_sym *fs = xf->sym;
	struct frame_sym anon = *fs;

	frame_put(&f->text, fs, f->name_scope, f->o->pathstrip);
	out->name = text_id(f);
	/* The caller-independent name jit.p falls back to, full path. */
	anon.name = NULL;
	sb_reset(&f->text);
	frame_put(&f->text, &anon, 'f', false);
	if (fs->csym) {	/* --native: the C function's own symbol */
		sb_reset(&f->text);
		sb_puts(&f->text, fs->csym);
	}
	out->system_name = text_id(f);
	sb_reset(&f->text);
	export_chunk_file(&f->text, fs);
	out->filename = text_id(f);
	out->start_line = fs->kind == SYM_LUA && fs->firstline > 0 ? fs->firstline : 0;
}

int64_t pbframes_line(const struct xframe *xf)
{
	const struct frame_sym *f = xf->sym;

	if (xf->kind != XF_FRAME || f->kind != SYM_LUA)
		return 0;
	if (f->line >= 0)
		return f->line;
	return f->firstline > 0 ? f->firstline : 0;
}

bool pbframes_mapping(struct pbframes *f, const struct xframe *xf, struct pb_mapping *out,
		      uint64_t *address)
{
	const struct frame_sym *fs = xf->sym;

	if (xf->kind != XF_FRAME || (fs->kind != SYM_C && fs->kind != SYM_NATIVE) ||
	    !fs->map_file)
		return false;
	memset(out, 0, sizeof(*out));
	out->start = fs->map_start;
	out->limit = fs->map_limit;
	out->offset = fs->map_offset;
	out->filename = pbframes_cstr(f, fs->map_file);
	out->build_id = pbframes_cstr(f, fs->map_build_id ? fs->map_build_id : "");
	*address = fs->cfunc;
	return true;
}

/* --jit: "start -- message [at line]" of the latest abort seen for the
 * sample's function. */
/* An nginx request's labels, each under its semantic-convention name
 * (model/reqlabel.h: url.path, http.request.method, ...). */
static void req_labels(const struct sample *s, const struct pb_label_sink *out)
{
	char v[REQ_KEY_MAX];

	if (!s->req)
		return;
	for (int i = 0; i < REQ_F__N; i++)
		if (*reqlabel_field(s->req, (enum req_field)i, v, sizeof(v)))
			out->str(out->ctx, reqlabel_field_attr((enum req_field)i), v);
}

static void jit_label(struct pbframes *f, const struct sample *s, const struct pb_label_sink *out)
{
	const struct jw_abort *a;
	char key[JW_LOC];

	if (!f->o->jit || view_jit_key(s, key, sizeof(key)))
		return;
	a = view_jit_abort_of(f->o->jit, key);
	if (!a)
		return;
	sb_reset(&f->text);
	sb_printf(&f->text, "%s -- %s%s%s", a->start, a->text, a->at[0] ? " at " : "", a->at);
	out->str(out->ctx, "jit_abort", sb_str(&f->text));
}

static void container_labels(const struct proc_container *c, const struct pb_label_sink *out)
{
	const char *const pairs[][2] = {
		{ "container_id", c->id }, { "container", c->name },
		{ "pod", c->pod_name }, { "pod_uid", c->pod_uid },
		{ "namespace", c->pod_namespace },
	};

	char key[64], value[128];

	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
		if (pairs[i][1])
			out->str(out->ctx, pairs[i][0], pairs[i][1]);
	for (const char *at = c->labels; proc_label_next(&at, key, sizeof(key), value, sizeof(value)); )
		out->str(out->ctx, key, value);
}

void pbframes_labels(struct pbframes *f, const struct sample *s, const struct pb_label_sink *out)
{
	const struct proc_container *c = profile_container(f->p, s->pid);

	out->num(out->ctx, "pid", s->pid);
	out->num(out->ctx, "tid", s->tid);
	out->str(out->ctx, "comm", profile_comm(f->p, s->pid));
	if (c)
		container_labels(c, out);
	if (profile_unit_ns(f->p))
		out->str(out->ctx, "state", !(s->flags & PSAMPLE_OFFCPU) ? "running" :
			 s->flags & PSAMPLE_WAITING ? "waiting" : "blocked");
	if (s->flags & PSAMPLE_HOST)
		return;
	char letter[2] = { vm_class_letter(vm_class_of(s->vmstate)), 0 };

	out->str(out->ctx, "vmstate", letter);
	if (s->vmstate >= 1)
		out->num(out->ctx, "trace", s->vmstate);
	if (s->vmstate >= 1 && s->trace_start)
		out->str(out->ctx, "trace_start", s->trace_start);
	/* Functions whose time the trace's frames hold: no split is made. */
	if (s->vmstate >= 1 && s->inlined)
		out->str(out->ctx, "inlined_no_snapshot", s->inlined);
	if (s->zone)
		out->str(out->ctx, "zone", s->zone);
	if (s->group)
		out->str(out->ctx, "group", s->group);
	req_labels(s, out);
	jit_label(f, s, out);
}

uint64_t pbframes_period(const struct profile *p)
{
	return p->alloc_every ? profile_alloc_bytes(p) : p->hz ? 1000000000ull / p->hz : 0;
}

const char *pbframes_time_type(const struct profile *p)
{
	switch (p->event) {
	case PROFILE_OFFCPU:
		return "off_cpu";
	case PROFILE_WALL:
		return "wall";
	case PROFILE_CPU:
	case PROFILE_ALLOC:	/* alloc_space: the exporters' own case */
		break;
	}
	return "cpu";
}

uint64_t pbframes_value(const struct profile *p, const struct sample *s)
{
	/* Off-CPU and wall counts are nanoseconds already. */
	return profile_unit_ns(p) ? s->count : s->count * pbframes_period(p);
}
