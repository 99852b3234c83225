// SPDX-License-Identifier: MIT
/* A side of a diff as one pprof file: what `go tool pprof -diff_base`
 * takes when a side is several files merged (a directory, windows) or
 * folded stacks.  Frames are functions named by their 'F' name, with the
 * 'f' name as the system name and the current line where the files had
 * one; samples keep their vmstate and zone labels, the profile its
 * duration and period, so that diff reads the file back as it was. */
#include "report/diff_out.h"

#include <stdlib.h>
#include <string.h>

#include "base/pbwriter.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "model/strtab.h"
#include "report/export.h"

enum {
	P_SAMPLE_TYPE = 1, P_SAMPLE = 2, P_LOCATION = 4, P_FUNCTION = 5, P_STRING = 6,
	P_TIME = 9, P_DURATION = 10, P_PERIOD_TYPE = 11, P_PERIOD = 12, P_COMMENT = 13,
	VT_TYPE = 1, VT_UNIT = 2,
	S_LOCATION = 1, S_VALUE = 2, S_LABEL = 3, LB_KEY = 1, LB_STR = 2,
	L_ID = 1, L_LINE = 4, LN_FUNCTION = 1, LN_LINE = 2,
	F_ID = 1, F_NAME = 2, F_SYSTEM_NAME = 3, F_FILENAME = 4,
};

struct pp_out {
	const struct stackset *s;
	struct strtab str;	/* the file's string table */
	struct strtab locs;	/* a frame's bytes -> location id */
	struct strtab funcs;	/* an 'F' id's bytes -> function id */
	struct strbuf body, sub, line;
};

static uint64_t sid(struct pp_out *o, const char *s)
{
	return strtab_intern(&o->str, s, strlen(s));
}

/* A function is its 'F' name and, where the frame has a line, the file
 * its 'l' name starts with ("main.lua" of "main.lua:7"): read back, the
 * two make the 'l' name again. */
static uint64_t function_of(struct pp_out *o, const struct ss_frame *fr)
{
	const char *l = fr->l ? strtab_str(&o->s->str, fr->l) : "";
	const char *colon = strrchr(l, ':');
	uint32_t key[2] = { fr->F, 0 }, before = o->funcs.n, id;

	key[1] = colon ? strtab_intern(&o->str, l, (size_t)(colon - l)) : 0;
	id = strtab_intern(&o->funcs, (const char *)key, sizeof(key));
	if (o->funcs.n != before) {	/* new */
		sb_reset(&o->sub);
		pb_uint(&o->sub, F_ID, id);
		pb_uint(&o->sub, F_NAME, sid(o, strtab_str(&o->s->str, fr->F)));
		pb_uint(&o->sub, F_SYSTEM_NAME, sid(o, strtab_str(&o->s->str, fr->f ? fr->f : fr->F)));
		pb_uint(&o->sub, F_FILENAME, key[1]);
		pb_bytes(&o->body, P_FUNCTION, o->sub.buf, o->sub.len);
	}
	return id;
}

/* The current line of an 'l' name ("app.lua:12"), 0 for none. */
static int64_t line_of(const struct pp_out *o, const struct ss_frame *fr)
{
	const char *l = fr->l ? strtab_str(&o->s->str, fr->l) : "";
	const char *colon = strrchr(l, ':');

	return colon ? strtoll(colon + 1, NULL, 10) : 0;
}

static uint64_t location_of(struct pp_out *o, const struct ss_frame *fr)
{
	uint32_t before = o->locs.n;
	uint32_t id = strtab_intern(&o->locs, (const char *)fr, sizeof(*fr));

	if (o->locs.n != before) {
		uint64_t fn = function_of(o, fr);

		sb_reset(&o->line);
		pb_uint(&o->line, LN_FUNCTION, fn);
		pb_int(&o->line, LN_LINE, line_of(o, fr));
		sb_reset(&o->sub);
		pb_uint(&o->sub, L_ID, id);
		pb_bytes(&o->sub, L_LINE, o->line.buf ? o->line.buf : "", o->line.len);
		pb_bytes(&o->body, P_LOCATION, o->sub.buf, o->sub.len);
	}
	return id;
}

static void put_label(struct pp_out *o, struct strbuf *msg, const char *key, uint32_t value)
{
	if (!value)
		return;
	sb_reset(&o->sub);
	pb_uint(&o->sub, LB_KEY, sid(o, key));
	pb_uint(&o->sub, LB_STR, sid(o, strtab_str(&o->s->str, value)));
	pb_bytes(msg, S_LABEL, o->sub.buf, o->sub.len);
}

static void put_value_type(struct pp_out *o, struct strbuf *pb, uint32_t field, const char *type,
			   const char *unit)
{
	sb_reset(&o->sub);
	pb_uint(&o->sub, VT_TYPE, sid(o, type));
	pb_uint(&o->sub, VT_UNIT, sid(o, unit));
	pb_bytes(pb, field, o->sub.buf, o->sub.len);
}

/* The header, samples, locations and functions; the strings last, once
 * all are interned. */
static void build(struct pp_out *o, struct strbuf *pb, uint64_t period)
{
	const struct stackset *s = o->s;
	struct strbuf msg = STRBUF_INIT;
	uint64_t *ids = xmalloc((SS_MAX_DEPTH + 1) * sizeof(*ids));

	/* Without a period (folded stacks) the samples are the only value:
	 * pprof shows the last type by default. */
	put_value_type(o, pb, P_SAMPLE_TYPE, "samples", "count");
	if (period) {
		put_value_type(o, pb, P_SAMPLE_TYPE, "cpu", "nanoseconds");
		put_value_type(o, pb, P_PERIOD_TYPE, "cpu", "nanoseconds");
	}
	for (size_t i = 0; i < s->nsamples; i++) {
		const struct ss_sample *sm = &s->samples[i];
		uint64_t values[2] = { sm->count, sm->count * period };

		for (uint32_t k = 0; k < sm->n; k++)	/* leaf first */
			ids[k] = location_of(o, &s->frames[sm->at + sm->n - 1 - k]);
		sb_reset(&msg);
		pb_packed(&msg, S_LOCATION, ids, sm->n);
		pb_packed(&msg, S_VALUE, values, period ? 2 : 1);
		put_label(o, &msg, "vmstate", sm->vmstate);
		put_label(o, &msg, "zone", sm->zone);
		pb_bytes(pb, P_SAMPLE, msg.buf ? msg.buf : "", msg.len);
	}
	sb_putn(pb, sb_str(&o->body), o->body.len);
	pb_uint(pb, P_COMMENT, sid(o, "luabpfprof: diff's merge of one side, frame names 'F'"));
	for (uint32_t i = 0; i < o->str.n; i++)
		pb_bytes(pb, P_STRING, o->str.s[i], o->str.len[i]);
	pb_uint(pb, P_TIME, s->start_ns);
	pb_uint(pb, P_DURATION, s->duration_ns);
	pb_uint(pb, P_PERIOD, period);
	sb_free(&msg);
	free(ids);
}

int diff_pprof_write(FILE *f, const struct stackset *s)
{
	struct pp_out o = { .s = s, .str = STRTAB_INIT, .locs = STRTAB_INIT, .funcs = STRTAB_INIT };
	struct strbuf pb = STRBUF_INIT, gz = STRBUF_INIT;
	/* The period the files had: duration over the ticks it held. */
	uint64_t period = s->ticks > 0 ? (uint64_t)((double)s->duration_ns / s->ticks + 0.5) : 0;
	int rc;

	strtab_intern(&o.str, "", 0);
	strtab_intern(&o.locs, "", 0);	/* ids from 1 */
	strtab_intern(&o.funcs, "", 0);
	build(&o, &pb, period);
	rc = export_gzip(&gz, sb_str(&pb), pb.len);
	if (!rc && fwrite(sb_str(&gz), 1, gz.len, f) != gz.len)
		rc = -1;
	sb_free(&gz);
	strtab_free(&o.str);
	strtab_free(&o.locs);
	strtab_free(&o.funcs);
	sb_free(&o.body);
	sb_free(&o.sub);
	sb_free(&o.line);
	sb_free(&pb);
	return rc;
}
