// SPDX-License-Identifier: MIT
/* OTLP profiles (export_otlp.c's ExportProfilesServiceRequest) back into
 * stacks, by way of pprof: each Profile is re-encoded as a pprof Profile
 * over the request's dictionary (its strings, functions and locations,
 * ids one past their indexes), its stacks become location ids, its
 * vmstate and zone attributes labels, and read_pprof reads that.  One
 * file of several Profiles (processes, services) is all of them, merged. */
#include "report/profile_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/pbreader.h"
#include "base/pbwriter.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "model/strtab.h"

enum {
	REQ_RESOURCE_PROFILES = 1, REQ_DICTIONARY = 2,
	RP_SCOPE_PROFILES = 2, SP_SCOPE = 1, SP_PROFILES = 2, SCOPE_NAME = 1,
	D_LOCATION = 2, D_FUNCTION = 3, D_STRING = 5, D_ATTRIBUTE = 6, D_STACK = 7,
	OL_LINE = 3, OLN_FUNCTION = 1, OLN_LINE = 2,
	OF_NAME = 1, OF_SYSTEM_NAME = 2, OF_FILENAME = 3, OF_START_LINE = 4,
	ST_LOCATIONS = 1, KVU_KEY = 1, KVU_VALUE = 2, ANY_STRING = 1,
	PR_SAMPLE_TYPE = 1, PR_SAMPLES = 2, PR_TIME = 3, PR_DURATION = 4, PR_PERIOD = 6,
	VT_TYPE = 1, VT_UNIT = 2,
	OS_STACK = 1, OS_ATTRIBUTES = 2, OS_VALUES = 4,
	/* pprof's */
	P_SAMPLE_TYPE = 1, P_SAMPLE = 2, P_LOCATION = 4, P_FUNCTION = 5, P_STRING = 6,
	P_TIME = 9, P_DURATION = 10, P_PERIOD = 12, P_COMMENT = 13,
	PS_LOCATION = 1, PS_VALUE = 2, PS_LABEL = 3, PLB_KEY = 1, PLB_STR = 2,
	PL_ID = 1, PL_LINE = 4, PLN_FUNCTION = 1, PLN_LINE = 2,
	PF_ID = 1, PF_NAME = 2, PF_SYSTEM_NAME = 3, PF_FILENAME = 4, PF_START_LINE = 5,
};

#define MAX_ATTRS	64

struct span {
	const uint8_t *p;
	size_t n;
};

struct spans {
	struct span *v;
	size_t n, cap;
};

struct dict {
	struct spans strs, locs, funcs, attrs, stacks;
	struct strbuf tables;	/* pprof's functions and locations, once */
};

static void push(struct spans *s, const struct pb_field *f)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->v = xrealloc(s->v, s->cap * sizeof(*s->v));
	}
	s->v[s->n++] = (struct span){ f->data, f->len };
}

/* Calls fn for each length-delimited field numbered num of m (0: every
 * one); -1 when m is malformed. */
static int each(struct span m, uint32_t num, void (*fn)(void *ctx, const struct pb_field *f),
		void *ctx)
{
	struct pb_reader r;
	struct pb_field f;
	int rc;

	pbr_init(&r, m.p, m.n);
	while ((rc = pbr_next(&r, &f)) > 0)
		if (f.wire == PB_LEN && (!num || f.num == num))
			fn(ctx, &f);
	return rc;
}

static uint64_t varint_of(struct span m, uint32_t num)
{
	struct pb_reader r;
	struct pb_field f;
	uint64_t v = 0;

	pbr_init(&r, m.p, m.n);
	while (pbr_next(&r, &f) > 0)
		if (f.num == num && (f.wire == PB_VARINT || f.wire == PB_I64))
			v = f.v;
	return v;
}

static struct span bytes_of(struct span m, uint32_t num)
{
	struct pb_reader r;
	struct pb_field f;
	struct span out = { (const uint8_t *)"", 0 };

	pbr_init(&r, m.p, m.n);
	while (pbr_next(&r, &f) > 0)
		if (f.num == num && f.wire == PB_LEN)
			out = (struct span){ f.data, f.len };
	return out;
}

static void dict_field(void *ctx, const struct pb_field *f)
{
	struct dict *d = ctx;

	if (f->num == D_STRING)
		push(&d->strs, f);
	else if (f->num == D_LOCATION)
		push(&d->locs, f);
	else if (f->num == D_FUNCTION)
		push(&d->funcs, f);
	else if (f->num == D_ATTRIBUTE)
		push(&d->attrs, f);
	else if (f->num == D_STACK)
		push(&d->stacks, f);
}

static void put_line(void *ctx, const struct pb_field *f)
{
	struct strbuf *loc = ctx, line = STRBUF_INIT;
	struct span ln = { f->data, f->len };

	pb_uint(&line, PLN_FUNCTION, varint_of(ln, OLN_FUNCTION) + 1);
	pb_int(&line, PLN_LINE, (int64_t)varint_of(ln, OLN_LINE));
	pb_bytes(loc, PL_LINE, line.buf ? line.buf : "", line.len);
	sb_free(&line);
}

/* The dictionary's tables, and its functions and locations as pprof's,
 * ids one past their indexes.  -1 when malformed. */
static int read_dict(struct span m, struct dict *d)
{
	struct strbuf sub = STRBUF_INIT;
	int rc = each(m, 0, dict_field, d);

	for (size_t i = 0; rc >= 0 && i < d->funcs.n; i++) {
		struct span fn = d->funcs.v[i];

		sb_reset(&sub);
		pb_uint(&sub, PF_ID, i + 1);
		pb_uint(&sub, PF_NAME, varint_of(fn, OF_NAME));
		pb_uint(&sub, PF_SYSTEM_NAME, varint_of(fn, OF_SYSTEM_NAME));
		pb_uint(&sub, PF_FILENAME, varint_of(fn, OF_FILENAME));
		pb_int(&sub, PF_START_LINE, (int64_t)varint_of(fn, OF_START_LINE));
		pb_bytes(&d->tables, P_FUNCTION, sub.buf ? sub.buf : "", sub.len);
	}
	for (size_t i = 0; rc >= 0 && i < d->locs.n; i++) {
		sb_reset(&sub);
		pb_uint(&sub, PL_ID, i + 1);
		rc = each(d->locs.v[i], OL_LINE, put_line, &sub);
		pb_bytes(&d->tables, P_LOCATION, sub.buf ? sub.buf : "", sub.len);
	}
	sb_free(&sub);
	return rc < 0 || !d->strs.n ? -1 : 0;
}

struct conv {
	struct dict *d;
	struct strtab extra;	/* strings past the dictionary's: labels' values */
	struct strbuf pb;	/* the pprof Profile */
	uint64_t period;
	bool time_type;		/* nanoseconds: a samples count is added */
	uint64_t ids[SS_MAX_DEPTH];
	uint32_t nids;
	uint64_t attrs[MAX_ATTRS], values[2];
	uint32_t nattrs, nvalues;
};

static uint64_t extra_str(struct conv *c, const char *s, size_t n)
{
	return c->d->strs.n + strtab_intern(&c->extra, s, n);
}

static bool str_is(const struct dict *d, uint64_t id, const char *s)
{
	return id < d->strs.n && d->strs.v[id].n == strlen(s) && !memcmp(d->strs.v[id].p, s, d->strs.v[id].n);
}

static void take_id(void *ctx, uint64_t v)
{
	struct conv *c = ctx;

	if (c->nids < SS_MAX_DEPTH)
		c->ids[c->nids++] = v + 1;
}

static void take_attr(void *ctx, uint64_t v)
{
	struct conv *c = ctx;

	if (c->nattrs < MAX_ATTRS)
		c->attrs[c->nattrs++] = v;
}

static void take_value(void *ctx, uint64_t v)
{
	struct conv *c = ctx;

	if (c->nvalues < 1)
		c->values[c->nvalues++] = v;
}

/* The sample's vmstate and zone attributes as pprof labels into msg. */
static void put_labels(struct conv *c, struct strbuf *msg)
{
	struct strbuf sub = STRBUF_INIT;

	for (uint32_t i = 0; i < c->nattrs; i++) {
		struct span a, val;
		uint64_t key;

		if (c->attrs[i] >= c->d->attrs.n)
			continue;
		a = c->d->attrs.v[c->attrs[i]];
		key = varint_of(a, KVU_KEY);
		if (!str_is(c->d, key, "vmstate") && !str_is(c->d, key, "zone"))
			continue;
		val = bytes_of(bytes_of(a, KVU_VALUE), ANY_STRING);
		sb_reset(&sub);
		pb_uint(&sub, PLB_KEY, key);
		pb_uint(&sub, PLB_STR, extra_str(c, (const char *)val.p, val.n));
		pb_bytes(msg, PS_LABEL, sub.buf, sub.len);
	}
	sb_free(&sub);
}

static void put_sample(void *ctx, const struct pb_field *f)
{
	struct conv *c = ctx;
	struct span sm = { f->data, f->len };
	struct strbuf msg = STRBUF_INIT;
	struct pb_reader r;
	struct pb_field g;
	uint64_t stack = varint_of(sm, OS_STACK), v[2];

	c->nids = c->nattrs = c->nvalues = 0;
	pbr_init(&r, sm.p, sm.n);
	while (pbr_next(&r, &g) > 0) {
		if (g.num == OS_ATTRIBUTES)
			pbr_varints(&g, take_attr, c);
		else if (g.num == OS_VALUES)
			pbr_varints(&g, take_value, c);
	}
	if (stack < c->d->stacks.n) {
		struct pb_field loc;

		pbr_init(&r, c->d->stacks.v[stack].p, c->d->stacks.v[stack].n);
		while (pbr_next(&r, &loc) > 0)
			if (loc.num == ST_LOCATIONS)
				pbr_varints(&loc, take_id, c);
	}
	v[1] = c->nvalues ? c->values[0] : 0;
	v[0] = c->period ? v[1] / c->period : v[1];
	pb_packed(&msg, PS_LOCATION, c->ids, c->nids);
	pb_packed(&msg, PS_VALUE, c->time_type ? v : v + 1, c->time_type ? 2 : 1);
	put_labels(c, &msg);
	pb_bytes(&c->pb, P_SAMPLE, msg.buf ? msg.buf : "", msg.len);
	sb_free(&msg);
}

static void put_value_type(struct conv *c, uint64_t type, uint64_t unit)
{
	struct strbuf vt = STRBUF_INIT;

	pb_uint(&vt, VT_TYPE, type);
	pb_uint(&vt, VT_UNIT, unit);
	pb_bytes(&c->pb, P_SAMPLE_TYPE, vt.buf ? vt.buf : "", vt.len);
	sb_free(&vt);
}

/* One OTLP Profile as a pprof Profile in c->pb; -1 when malformed. */
static int convert(struct conv *c, struct span prof, bool ours)
{
	struct span vt = bytes_of(prof, PR_SAMPLE_TYPE);
	uint64_t type = varint_of(vt, VT_TYPE), unit = varint_of(vt, VT_UNIT);
	int rc;

	c->period = varint_of(prof, PR_PERIOD);
	c->time_type = str_is(c->d, unit, "nanoseconds");
	if (c->time_type)
		put_value_type(c, extra_str(c, "samples", 7), extra_str(c, "count", 5));
	put_value_type(c, type, unit);
	rc = each(prof, PR_SAMPLES, put_sample, c);
	sb_putn(&c->pb, sb_str(&c->d->tables), c->d->tables.len);
	if (ours)
		pb_uint(&c->pb, P_COMMENT,
			extra_str(c, "luabpfprof: OTLP, frame names 'F'", 34));
	for (size_t i = 0; i < c->d->strs.n; i++)
		pb_bytes(&c->pb, P_STRING, c->d->strs.v[i].p, c->d->strs.v[i].n);
	for (uint32_t i = 0; i < c->extra.n; i++)
		pb_bytes(&c->pb, P_STRING, c->extra.s[i], c->extra.len[i]);
	pb_uint(&c->pb, P_TIME, varint_of(prof, PR_TIME));
	pb_uint(&c->pb, P_DURATION, varint_of(prof, PR_DURATION));
	pb_uint(&c->pb, P_PERIOD, c->period);
	return rc < 0 ? -1 : 0;
}

struct walk {
	const char *name;
	struct dict *d;
	const struct read_window *w;
	struct stackset *s;
	char *err;
	size_t errlen;
	bool ours;
	int rc;			/* -1 at the first bad profile */
	unsigned read;
};

static void read_profile(void *ctx, const struct pb_field *f)
{
	struct walk *wk = ctx;
	struct conv *c;
	int rc;

	if (wk->rc < 0)
		return;
	c = xcalloc(1, sizeof(*c));
	c->d = wk->d;
	if (convert(c, (struct span){ f->data, f->len }, wk->ours)) {
		snprintf(wk->err, wk->errlen, "%s: a malformed OTLP profile", wk->name);
		wk->rc = -1;
	} else {
		rc = read_pprof(wk->name, (const uint8_t *)sb_str(&c->pb), c->pb.len, wk->w, wk->s,
				wk->err, wk->errlen);
		if (rc < 0)
			wk->rc = -1;
		wk->read += rc == 0;
	}
	strtab_free(&c->extra);
	sb_free(&c->pb);
	free(c);
}

static void read_scope(void *ctx, const struct pb_field *f)
{
	struct walk *wk = ctx;
	struct span sp = { f->data, f->len };
	struct span name = bytes_of(bytes_of(sp, SP_SCOPE), SCOPE_NAME);

	wk->ours = name.n == 10 && !memcmp(name.p, "luabpfprof", 10);
	if (each(sp, SP_PROFILES, read_profile, wk) < 0)
		wk->rc = -1;
}

static void read_resource(void *ctx, const struct pb_field *f)
{
	struct walk *wk = ctx;

	if (each((struct span){ f->data, f->len }, RP_SCOPE_PROFILES, read_scope, wk) < 0)
		wk->rc = -1;
}

static void dict_free(struct dict *d)
{
	free(d->strs.v);
	free(d->locs.v);
	free(d->funcs.v);
	free(d->attrs.v);
	free(d->stacks.v);
	sb_free(&d->tables);
}

int read_otlp(const char *name, const uint8_t *data, size_t n, const struct read_window *w,
	      struct stackset *s, char *err, size_t errlen)
{
	struct span req = { data, n };
	struct dict d;
	struct walk wk = { name, &d, w, s, err, errlen, false, 0, 0 };

	memset(&d, 0, sizeof(d));
	if (read_dict(bytes_of(req, REQ_DICTIONARY), &d)) {
		dict_free(&d);
		snprintf(err, errlen, "%s: neither pprof nor OTLP (a malformed protobuf)", name);
		return -1;
	}
	if (each(req, REQ_RESOURCE_PROFILES, read_resource, &wk) < 0 && wk.rc == 0) {
		snprintf(err, errlen, "%s: a malformed OTLP request", name);
		wk.rc = -1;
	}
	dict_free(&d);
	if (wk.rc < 0)
		return -1;
	return wk.read ? 0 : 1;
}
