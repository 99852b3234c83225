// SPDX-License-Identifier: MIT
/* pprof's profile.proto back into stacks: the string table, functions
 * and locations first, then each sample's location ids (leaf first, and
 * a location's lines innermost first) root first, with the vmstate and
 * zone labels luabpfprof writes (pbframes.c). */
#include "report/profile_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/pbreader.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

enum {
	P_SAMPLE_TYPE = 1, P_SAMPLE = 2, P_LOCATION = 4, P_FUNCTION = 5, P_STRING = 6,
	P_TIME = 9, P_DURATION = 10, P_PERIOD = 12, P_COMMENT = 13,
	VT_TYPE = 1,
	S_LOCATION = 1, S_VALUE = 2, S_LABEL = 3,
	LB_KEY = 1, LB_STR = 2,
	L_ID = 1, L_LINE = 4, LN_FUNCTION = 1, LN_LINE = 2,
	F_ID = 1, F_NAME = 2, F_FILENAME = 4,
};

/* The most values a sample may have, types a profile: more is not ours. */
#define MAX_TYPES	16

struct span {
	const uint8_t *p;
	size_t n;
};

struct pp_func {
	uint64_t id, name, filename;
};

struct pp_line {
	uint64_t func;
	int64_t line;
};

struct pp_loc {
	uint64_t id;
	size_t first;		/* in lines[] */
	uint32_t n;
};

#define VEC(T)	struct { T *v; size_t n, cap; }
#define PUSH(vec, x) do {                                                    \
		if ((vec).n == (vec).cap) {                                   \
			(vec).cap = (vec).cap ? 2 * (vec).cap : 64;           \
			(vec).v = xrealloc((vec).v, (vec).cap * sizeof(*(vec).v)); \
		}                                                             \
		(vec).v[(vec).n++] = (x);                                     \
	} while (0)

struct pp {
	VEC(struct span) strs;
	VEC(struct pp_func) funcs;
	VEC(struct pp_loc) locs;
	VEC(struct pp_line) lines;
	VEC(struct span) samples;
	VEC(uint64_t) comments;
	uint64_t types[MAX_TYPES];
	int ntypes;
	uint64_t time, duration, period;
	bool bad;
};

static void pp_free(struct pp *p)
{
	free(p->strs.v);
	free(p->funcs.v);
	free(p->locs.v);
	free(p->lines.v);
	free(p->samples.v);
	free(p->comments.v);
}

static struct span str_of(const struct pp *p, uint64_t id)
{
	struct span none = { (const uint8_t *)"", 0 };

	return id < p->strs.n ? p->strs.v[id] : none;
}

static bool str_is(const struct pp *p, uint64_t id, const char *s)
{
	struct span sp = str_of(p, id);

	return sp.n == strlen(s) && !memcmp(sp.p, s, sp.n);
}

static void parse_function(struct pp *p, const struct pb_field *f)
{
	struct pb_reader r;
	struct pb_field g;
	struct pp_func fn = { 0 };
	int rc;

	pbr_init(&r, f->data, f->len);
	while ((rc = pbr_next(&r, &g)) > 0) {
		if (g.wire != PB_VARINT)
			continue;
		if (g.num == F_ID)
			fn.id = g.v;
		else if (g.num == F_NAME)
			fn.name = g.v;
		else if (g.num == F_FILENAME)
			fn.filename = g.v;
	}
	p->bad |= rc < 0;
	PUSH(p->funcs, fn);
}

static void parse_line(struct pp *p, const struct pb_field *f)
{
	struct pb_reader r;
	struct pb_field g;
	struct pp_line ln = { 0, 0 };
	int rc;

	pbr_init(&r, f->data, f->len);
	while ((rc = pbr_next(&r, &g)) > 0) {
		if (g.wire == PB_VARINT && g.num == LN_FUNCTION)
			ln.func = g.v;
		else if (g.wire == PB_VARINT && g.num == LN_LINE)
			ln.line = (int64_t)g.v;
	}
	p->bad |= rc < 0;
	PUSH(p->lines, ln);
}

static void parse_location(struct pp *p, const struct pb_field *f)
{
	struct pb_reader r;
	struct pb_field g;
	struct pp_loc loc = { 0, p->lines.n, 0 };
	int rc;

	pbr_init(&r, f->data, f->len);
	while ((rc = pbr_next(&r, &g)) > 0) {
		if (g.wire == PB_VARINT && g.num == L_ID) {
			loc.id = g.v;
		} else if (g.wire == PB_LEN && g.num == L_LINE && loc.n < SS_MAX_DEPTH) {
			parse_line(p, &g);
			loc.n++;
		}
	}
	p->bad |= rc < 0;
	PUSH(p->locs, loc);
}

static void parse_sample_type(struct pp *p, const struct pb_field *f)
{
	struct pb_reader r;
	struct pb_field g;
	uint64_t type = 0;

	pbr_init(&r, f->data, f->len);
	while (pbr_next(&r, &g) > 0)
		if (g.wire == PB_VARINT && g.num == VT_TYPE)
			type = g.v;
	if (p->ntypes < MAX_TYPES)
		p->types[p->ntypes++] = type;
}

static void top_field(struct pp *p, const struct pb_field *f)
{
	struct span sp = { f->data, f->len };

	if (f->wire == PB_LEN) {
		switch (f->num) {
		case P_SAMPLE_TYPE: parse_sample_type(p, f); break;
		case P_SAMPLE: PUSH(p->samples, sp); break;
		case P_LOCATION: parse_location(p, f); break;
		case P_FUNCTION: parse_function(p, f); break;
		case P_STRING: PUSH(p->strs, sp); break;
		}
		return;
	}
	if (f->wire != PB_VARINT)
		return;
	switch (f->num) {
	case P_TIME: p->time = f->v; break;
	case P_DURATION: p->duration = f->v; break;
	case P_PERIOD: p->period = f->v; break;
	case P_COMMENT: PUSH(p->comments, f->v); break;
	}
}

static int cmp_func(const void *a, const void *b)
{
	uint64_t x = ((const struct pp_func *)a)->id, y = ((const struct pp_func *)b)->id;

	return (x > y) - (x < y);
}

static int cmp_loc(const void *a, const void *b)
{
	uint64_t x = ((const struct pp_loc *)a)->id, y = ((const struct pp_loc *)b)->id;

	return (x > y) - (x < y);
}

static const struct pp_func *find_func(const struct pp *p, uint64_t id)
{
	struct pp_func key = { .id = id };

	if (!p->funcs.n)
		return NULL;
	return bsearch(&key, p->funcs.v, p->funcs.n, sizeof(key), cmp_func);
}

static const struct pp_loc *find_loc(const struct pp *p, uint64_t id)
{
	struct pp_loc key = { .id = id };

	if (!p->locs.n)
		return NULL;
	return bsearch(&key, p->locs.v, p->locs.n, sizeof(key), cmp_loc);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* The frame of one line in the three scopes.  The file names its frames
 * in one scope (the comment's "frame names 'F'"); the others follow from
 * the function's file and the line. */
static void name_frame(const struct pp *p, const struct pp_line *ln, char scope,
		       struct stackset *s, struct ss_frame *out)
{
	const struct pp_func *fn = find_func(p, ln->func);
	struct span name = str_of(p, fn ? fn->name : 0), file = str_of(p, fn ? fn->filename : 0);
	char *file0 = xmalloc(file.n + 1);
	struct strbuf sb = STRBUF_INIT;
	const char *fname, *bn;
	size_t fn_len;

	memcpy(file0, file.p, file.n);
	file0[file.n] = '\0';
	bn = base_name(file0);
	out->F = out->f = strtab_intern(&s->str, (const char *)name.p, name.n);
	if (scope == 'F') {
		stackset_f_of_F(strtab_str(&s->str, out->F), &fname, &fn_len);
		out->f = strtab_intern(&s->str, fname, fn_len);
	} else if (*bn && name.n && name.p[0] != '[' &&
		   !(name.n > strlen(bn) && !memcmp(name.p, bn, strlen(bn)) &&
		     name.p[strlen(bn)] == ':')) {
		sb_printf(&sb, "%s:%.*s", bn, (int)name.n, (const char *)name.p);
		out->F = strtab_intern(&s->str, sb_str(&sb), sb.len);
	}
	out->l = 0;
	if (*bn && ln->line > 0) {
		sb_reset(&sb);
		sb_printf(&sb, "%s:%lld", bn, (long long)ln->line);
		out->l = strtab_intern(&s->str, sb_str(&sb), sb.len);
	}
	sb_free(&sb);
	free(file0);
}

struct sample_in {
	uint64_t ids[SS_MAX_DEPTH];
	uint32_t nids;
	bool deep;
	uint64_t values[MAX_TYPES];
	int nvalues;
};

static void take_id(void *ctx, uint64_t v)
{
	struct sample_in *in = ctx;

	if (in->nids < SS_MAX_DEPTH)
		in->ids[in->nids++] = v;
	else
		in->deep = true;
}

static void take_value(void *ctx, uint64_t v)
{
	struct sample_in *in = ctx;

	if (in->nvalues < MAX_TYPES)
		in->values[in->nvalues++] = v;
}

/* A label's key and string value, as ids of p's table. */
static int parse_label(const struct pb_field *f, uint64_t *key, uint64_t *str)
{
	struct pb_reader r;
	struct pb_field g;
	int rc;

	*key = *str = 0;
	pbr_init(&r, f->data, f->len);
	while ((rc = pbr_next(&r, &g)) > 0) {
		if (g.wire == PB_VARINT && g.num == LB_KEY)
			*key = g.v;
		else if (g.wire == PB_VARINT && g.num == LB_STR)
			*str = g.v;
	}
	return rc;
}

struct reading {
	struct pp *p;
	struct stackset *s;
	struct ss_frame *names;		/* per line of p */
	struct ss_frame *stack;		/* SS_MAX_DEPTH */
	int count_at, objects_at;	/* value indexes; objects -1 */
};

static int read_sample(struct reading *rd, struct span sp, struct sample_in *in)
{
	struct pp *p = rd->p;
	struct pb_reader r;
	struct pb_field f;
	struct ss_sample v = { 0 };
	uint32_t n = 0;
	uint64_t key, str;
	int rc;

	in->nids = 0;
	in->nvalues = 0;
	in->deep = false;
	pbr_init(&r, sp.p, sp.n);
	while ((rc = pbr_next(&r, &f)) > 0) {
		if (f.num == S_LOCATION && pbr_varints(&f, take_id, in))
			return -1;
		if (f.num == S_VALUE && pbr_varints(&f, take_value, in))
			return -1;
		if (f.num != S_LABEL || f.wire != PB_LEN || parse_label(&f, &key, &str) < 0)
			continue;
		if (str_is(p, key, "vmstate") || str_is(p, key, "zone")) {
			struct span val = str_of(p, str);
			uint32_t id = strtab_intern(&rd->s->str, (const char *)val.p, val.n);

			*(str_is(p, key, "vmstate") ? &v.vmstate : &v.zone) = id;
		}
	}
	if (rc < 0 || in->deep || rd->count_at >= in->nvalues)
		return -1;
	v.count = in->values[rd->count_at];
	v.objects = rd->objects_at >= 0 && rd->objects_at < in->nvalues ?
		    in->values[rd->objects_at] : 0;
	/* Leaf first in the file: filled from the end, root first. */
	for (uint32_t i = 0; i < in->nids; i++) {
		const struct pp_loc *loc = find_loc(p, in->ids[i]);

		for (uint32_t k = 0; loc && k < loc->n; k++) {
			if (n == SS_MAX_DEPTH)
				return -1;
			rd->stack[SS_MAX_DEPTH - 1 - n++] = rd->names[loc->first + k];
		}
	}
	return stackset_add(rd->s, rd->stack + SS_MAX_DEPTH - n, n, &v);
}

static char scope_of(const struct pp *p, bool *ours)
{
	char scope = 'F';

	*ours = false;
	for (size_t i = 0; i < p->comments.n; i++) {
		struct span c = str_of(p, p->comments.v[i]);

		if (c.n >= 11 && !memcmp(c.p, "luabpfprof:", 11))
			*ours = true;
		for (size_t k = 0; k + 15 <= c.n; k++)
			if (!memcmp(c.p + k, "frame names '", 13) && c.p[k + 14] == '\'')
				scope = (char)c.p[k + 13];
	}
	return scope == 'f' ? 'f' : 'F';
}

static int type_index(const struct pp *p, const char *name)
{
	for (int i = 0; i < p->ntypes; i++)
		if (str_is(p, p->types[i], name))
			return i;
	return -1;
}

static int read_samples(struct pp *p, struct stackset *s, unsigned *has)
{
	struct reading rd = { .p = p, .s = s };
	struct sample_in *in = xmalloc(sizeof(*in));
	bool ours;
	char scope = scope_of(p, &ours);
	int rc = 0;

	rd.count_at = type_index(p, "samples");
	rd.objects_at = -1;
	if (rd.count_at < 0 && (rd.count_at = type_index(p, "inuse_space")) >= 0) {
		rd.objects_at = type_index(p, "inuse_objects");
		*has |= SS_HEAP;
	}
	if (rd.count_at < 0)
		rd.count_at = 0;
	if (ours)
		*has |= SS_HAS_VMSTATE | SS_HAS_ZONE;
	rd.names = xcalloc(p->lines.n + 1, sizeof(*rd.names));
	rd.stack = xmalloc(SS_MAX_DEPTH * sizeof(*rd.stack));
	for (size_t i = 0; i < p->lines.n; i++)
		name_frame(p, &p->lines.v[i], scope, s, &rd.names[i]);
	for (size_t i = 0; i < p->samples.n && !rc; i++)
		rc = read_sample(&rd, p->samples.v[i], in);
	free(rd.names);
	free(rd.stack);
	free(in);
	return rc;
}

int read_pprof(const char *name, const uint8_t *data, size_t n, const struct read_window *w,
	       struct stackset *s, char *err, size_t errlen)
{
	struct pp p;
	struct pb_reader r;
	struct pb_field f;
	unsigned has = SS_HAS_LINES;
	int rc;

	memset(&p, 0, sizeof(p));
	pbr_init(&r, data, n);
	while ((rc = pbr_next(&r, &f)) > 0)
		top_field(&p, &f);
	if (rc < 0 || p.bad || !p.strs.n) {
		snprintf(err, errlen, "%s: not a pprof profile (malformed protobuf)", name);
		pp_free(&p);
		return READ_NOT_PPROF;
	}
	if (w && w->to_ns && !(p.time >= w->from_ns && p.time < w->to_ns)) {
		pp_free(&p);
		return 1;
	}
	if (p.funcs.n)
		qsort(p.funcs.v, p.funcs.n, sizeof(*p.funcs.v), cmp_func);
	if (p.locs.n)
		qsort(p.locs.v, p.locs.n, sizeof(*p.locs.v), cmp_loc);
	if (read_samples(&p, s, &has)) {
		snprintf(err, errlen, "%s: a malformed or oversized sample (more than %u frames, or counts past 2^64)",
			 name, SS_MAX_DEPTH);
		pp_free(&p);
		return -1;
	}
	if (p.duration) {
		has |= SS_HAS_DURATION;
		s->duration_ns += p.duration;
		if (p.period)
			s->ticks += (double)p.duration / (double)p.period;
	}
	if (p.time && (!s->start_ns || p.time < s->start_ns))
		s->start_ns = p.time;
	stackset_file_done(s, has);
	pp_free(&p);
	return 0;
}
