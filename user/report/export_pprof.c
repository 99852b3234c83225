// SPDX-License-Identifier: MIT
/* pprof: google/pprof's profile.proto, gzip-compressed, laid out as a Go
 * CPU profile (samples/count + cpu/nanoseconds) so that pprof, Pyroscope
 * and Parca read it as one.  Lua functions carry file and line numbers, so
 * nothing ever tries to symbolize them. */
#include "report/export.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "report/pbframes.h"
#include "base/pbwriter.h"

/* profile.proto field numbers (formats.md). */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_MAPPING = 3,
	PROFILE_LOCATION = 4, PROFILE_FUNCTION = 5, PROFILE_STRING_TABLE = 6,
	PROFILE_TIME_NANOS = 9, PROFILE_DURATION_NANOS = 10,
	PROFILE_PERIOD_TYPE = 11, PROFILE_PERIOD = 12, PROFILE_COMMENT = 13,
	VALUETYPE_TYPE = 1, VALUETYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2, SAMPLE_LABEL = 3,
	LABEL_KEY = 1, LABEL_STR = 2, LABEL_NUM = 3,
	MAPPING_ID = 1, MAPPING_MEMORY_START = 2, MAPPING_MEMORY_LIMIT = 3,
	MAPPING_FILE_OFFSET = 4, MAPPING_FILENAME = 5, MAPPING_BUILD_ID = 6,
	MAPPING_HAS_FUNCTIONS = 7, MAPPING_HAS_FILENAMES = 8, MAPPING_HAS_LINE_NUMBERS = 9,
	LOCATION_ID = 1, LOCATION_MAPPING_ID = 2, LOCATION_ADDRESS = 3, LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1, LINE_LINE = 2,
	FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3,
	FUNCTION_FILENAME = 4, FUNCTION_START_LINE = 5,
};

#define MAPPING_LUA	1	/* Lua and synthetic frames; C frames have their file's */

struct pprof_builder {
	struct pbframes f;		/* strings, frame content, labels */
	struct export_opts o;
	struct keytab functions;	/* pb_function -> id - 1 */
	struct keytab locations;	/* location key -> id - 1 */
	struct keytab mappings;		/* pb_mapping -> id - 2 (1 is MAPPING_LUA) */
	struct strbuf functions_pb, locations_pb, samples_pb, mappings_pb;
	struct strbuf msg, sub;		/* scratch */
};

struct location_key {
	uint64_t function_id;
	int64_t line;
	uint64_t mapping_id, address;
};

static void put_value_type(struct pprof_builder *b, struct strbuf *out, uint32_t field,
			   const char *type, const char *unit)
{
	sb_reset(&b->sub);
	pb_uint(&b->sub, VALUETYPE_TYPE, pbframes_cstr(&b->f, type));
	pb_uint(&b->sub, VALUETYPE_UNIT, pbframes_cstr(&b->f, unit));
	pb_bytes(out, field, b->sub.buf, b->sub.len);
}

static uint64_t function_id(struct pprof_builder *b, const struct xframe *xf,
			    const struct sample *s)
{
	struct pb_function key;
	struct strbuf sub = STRBUF_INIT;
	bool added;
	uint64_t id;

	pbframes_function(&b->f, xf, s, &key);
	id = keytab_intern(&b->functions, &key, sizeof(key), &added) + 1;
	if (added) {
		pb_uint(&sub, FUNCTION_ID, id);
		pb_uint(&sub, FUNCTION_NAME, key.name);
		pb_uint(&sub, FUNCTION_SYSTEM_NAME, key.system_name);
		pb_uint(&sub, FUNCTION_FILENAME, key.filename);
		pb_int(&sub, FUNCTION_START_LINE, key.start_line);
		pb_bytes(&b->functions_pb, PROFILE_FUNCTION, sub.buf, sub.len);
	}
	sb_free(&sub);
	return id;
}

static uint64_t mapping_id(struct pprof_builder *b, const struct pb_mapping *key)
{
	struct strbuf sub = STRBUF_INIT;
	bool added;
	uint64_t id;

	id = keytab_intern(&b->mappings, key, sizeof(*key), &added) + 2;
	if (added) {
		pb_uint(&sub, MAPPING_ID, id);
		pb_uint(&sub, MAPPING_MEMORY_START, key->start);
		pb_uint(&sub, MAPPING_MEMORY_LIMIT, key->limit);
		pb_uint(&sub, MAPPING_FILE_OFFSET, key->offset);
		pb_uint(&sub, MAPPING_FILENAME, key->filename);
		pb_uint(&sub, MAPPING_BUILD_ID, key->build_id);
		/* Named already (cname): pprof keeps the names it is given. */
		pb_bool(&sub, MAPPING_HAS_FUNCTIONS, 1);
		pb_bytes(&b->mappings_pb, PROFILE_MAPPING, sub.buf, sub.len);
	}
	sb_free(&sub);
	return id;
}

static uint64_t location_id(struct pprof_builder *b, const struct xframe *xf,
			    const struct sample *s)
{
	struct location_key key;
	struct pb_mapping map;
	struct strbuf sub = STRBUF_INIT, line = STRBUF_INIT;
	bool added;
	uint64_t id;

	memset(&key, 0, sizeof(key));
	key.function_id = function_id(b, xf, s);
	key.line = pbframes_line(xf);
	key.mapping_id = MAPPING_LUA;
	if (pbframes_mapping(&b->f, xf, &map, &key.address))
		key.mapping_id = mapping_id(b, &map);
	id = keytab_intern(&b->locations, &key, sizeof(key), &added) + 1;
	if (added) {
		pb_uint(&line, LINE_FUNCTION_ID, key.function_id);
		pb_int(&line, LINE_LINE, key.line);
		pb_uint(&sub, LOCATION_ID, id);
		pb_uint(&sub, LOCATION_MAPPING_ID, key.mapping_id);
		pb_uint(&sub, LOCATION_ADDRESS, key.address);
		pb_bytes(&sub, LOCATION_LINE, line.buf ? line.buf : "", line.len);
		pb_bytes(&b->locations_pb, PROFILE_LOCATION, sub.buf, sub.len);
	}
	sb_free(&sub);
	sb_free(&line);
	return id;
}

static void put_label_str(void *ctx, const char *key, const char *value)
{
	struct pprof_builder *b = ctx;

	sb_reset(&b->sub);
	pb_uint(&b->sub, LABEL_KEY, pbframes_cstr(&b->f, key));
	pb_uint(&b->sub, LABEL_STR, pbframes_cstr(&b->f, value));
	pb_bytes(&b->msg, SAMPLE_LABEL, b->sub.buf, b->sub.len);
}

static void put_label_num(void *ctx, const char *key, int64_t value)
{
	struct pprof_builder *b = ctx;

	sb_reset(&b->sub);
	pb_uint(&b->sub, LABEL_KEY, pbframes_cstr(&b->f, key));
	pb_int(&b->sub, LABEL_NUM, value);
	pb_bytes(&b->msg, SAMPLE_LABEL, b->sub.buf, b->sub.len);
}

static void put_sample(struct pprof_builder *b, const struct sample *s, struct xstack *st)
{
	uint64_t *ids = calloc(st->n + 1, sizeof(*ids));
	bool ns = profile_unit_ns(b->f.p);
	uint64_t values[2] = { ns ? s->events : s->count, pbframes_value(b->f.p, s) };
	struct pb_label_sink labels = { b, put_label_str, put_label_num };

	if (!ids) {
		fputs("luabpfprof: out of memory\n", stderr);
		abort();
	}
	/* location_id is leaf first; the exported stack is root first. */
	for (uint32_t i = 0; i < st->n; i++)
		ids[i] = location_id(b, &st->f[st->n - 1 - i], s);
	sb_reset(&b->msg);
	pb_packed(&b->msg, SAMPLE_LOCATION_ID, ids, st->n);
	pb_packed(&b->msg, SAMPLE_VALUE, values, 2);
	pbframes_labels(&b->f, s, &labels);
	pb_bytes(&b->samples_pb, PROFILE_SAMPLE, b->msg.buf, b->msg.len);
	free(ids);
}

/* The second type is the default one (pprof's last): CPU, off-CPU or wall
 * time, or bytes allocated. */
static void put_header(struct pprof_builder *b, struct strbuf *pb)
{
	/* -e alloc: a sample is alloc_every bytes allocated. */
	if (b->f.p->alloc_every) {
		put_value_type(b, pb, PROFILE_SAMPLE_TYPE, "samples", "count");
		put_value_type(b, pb, PROFILE_SAMPLE_TYPE, "alloc_space", "bytes");
		put_value_type(b, pb, PROFILE_PERIOD_TYPE, "space", "bytes");
		return;
	}
	put_value_type(b, pb, PROFILE_SAMPLE_TYPE, "samples", "count");
	put_value_type(b, pb, PROFILE_SAMPLE_TYPE, pbframes_time_type(b->f.p), "nanoseconds");
	put_value_type(b, pb, PROFILE_PERIOD_TYPE, pbframes_time_type(b->f.p), "nanoseconds");
}

static void put_mapping(struct pprof_builder *b, struct strbuf *pb)
{
	sb_reset(&b->sub);
	pb_uint(&b->sub, MAPPING_ID, MAPPING_LUA);
	pb_uint(&b->sub, MAPPING_FILENAME, pbframes_cstr(&b->f, "[lua]"));
	pb_bool(&b->sub, MAPPING_HAS_FUNCTIONS, 1);
	pb_bool(&b->sub, MAPPING_HAS_FILENAMES, 1);
	pb_bool(&b->sub, MAPPING_HAS_LINE_NUMBERS, 1);
	pb_bytes(pb, PROFILE_MAPPING, b->sub.buf, b->sub.len);
}

/* Encodes the uncompressed Profile message into pb. */
static void pprof_build(struct pprof_builder *b, struct strbuf *pb)
{
	const struct profile *p = b->f.p;
	struct strbuf *text = &b->f.text;
	struct xstack st = { 0 };
	uint64_t comment;

	put_header(b, pb);
	for (size_t i = 0; i < p->nsamples; i++) {
		if (!p->samples[i].count)
			continue;
		xstack_build(&st, &p->samples[i], &b->o, 0);
		put_sample(b, &p->samples[i], &st);
	}
	sb_putn(pb, sb_str(&b->samples_pb), b->samples_pb.len);
	put_mapping(b, pb);
	sb_putn(pb, sb_str(&b->mappings_pb), b->mappings_pb.len);
	sb_putn(pb, sb_str(&b->locations_pb), b->locations_pb.len);
	sb_putn(pb, sb_str(&b->functions_pb), b->functions_pb.len);
	sb_reset(text);
	if (p->alloc_every)
		sb_printf(text, "luabpfprof: allocations, one sample per %llu bytes, %llu samples, "
			  "frame names '%c'", (unsigned long long)profile_alloc_bytes(p),
			  (unsigned long long)p->total, b->f.name_scope);
	else if (profile_unit_ns(p))
		sb_printf(text, "luabpfprof: %s, %u Hz, %.3f s, frame names '%c'",
			  profile_event_name(p->event), p->hz, (double)p->total / 1e9,
			  b->f.name_scope);
	else
		sb_printf(text, "luabpfprof: %u Hz, %llu samples, frame names '%c'", p->hz,
			  (unsigned long long)p->total, b->f.name_scope);
	comment = pbframes_str(&b->f, sb_str(text), text->len);
	/* Every string is interned by now: the table can go out. */
	for (uint32_t i = 0; i < b->f.strings.n; i++)
		pb_bytes(pb, PROFILE_STRING_TABLE, b->f.strings.keys[i], b->f.strings.lens[i]);
	pb_uint(pb, PROFILE_TIME_NANOS, p->start_ns);
	pb_uint(pb, PROFILE_DURATION_NANOS, p->duration_ns);
	pb_uint(pb, PROFILE_PERIOD, pbframes_period(p));
	pb_uint(pb, PROFILE_COMMENT, comment);
	xstack_free(&st);
}

/* gzip, not zlib: pprof rejects a zlib-wrapped stream. */
int export_gzip(struct strbuf *gz, const void *data, size_t n)
{
	z_stream zs;
	unsigned char *out = NULL;
	uLong bound;
	int err = -1;

	memset(&zs, 0, sizeof(zs));
	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		errno = ENOMEM;
		return -1;
	}
	bound = deflateBound(&zs, n);
	out = malloc(bound);
	if (!out) {
		errno = ENOMEM;
		goto cleanup;
	}
	zs.next_in = (Bytef *)data;
	zs.avail_in = n;
	zs.next_out = out;
	zs.avail_out = bound;
	if (deflate(&zs, Z_FINISH) != Z_STREAM_END) {
		errno = EIO;
		goto cleanup;
	}
	sb_putn(gz, (const char *)out, zs.total_out);
	err = 0;
cleanup:
	deflateEnd(&zs);
	free(out);
	return err;
}

int pprof_encode(const struct profile *p, const struct export_opts *opts, struct strbuf *gz)
{
	struct pprof_builder b;
	struct strbuf pb = STRBUF_INIT;
	int err = -1;

	memset(&b, 0, sizeof(b));
	if (export_opts_norm(&b.o, opts))
		return -1;
	pbframes_init(&b.f, p, &b.o);
	pprof_build(&b, &pb);
	err = export_gzip(gz, sb_str(&pb), pb.len);
	sb_free(&pb);
	pbframes_free(&b.f);
	keytab_free(&b.functions);
	keytab_free(&b.locations);
	keytab_free(&b.mappings);
	sb_free(&b.mappings_pb);
	sb_free(&b.functions_pb);
	sb_free(&b.locations_pb);
	sb_free(&b.samples_pb);
	sb_free(&b.msg);
	sb_free(&b.sub);
	return err;
}

int export_pprof(FILE *out, const struct profile *p, const struct export_opts *o)
{
	struct strbuf gz = STRBUF_INIT;
	int err = -1;

	if (pprof_encode(p, o, &gz))
		goto cleanup;
	fwrite(sb_str(&gz), 1, gz.len, out);
	err = export_finish(out);
cleanup:
	sb_free(&gz);
	return err;
}
