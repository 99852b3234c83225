/* pprof: google/pprof's profile.proto, gzip-compressed, laid out as a Go
 * CPU profile (samples/count + cpu/nanoseconds) so that pprof, Pyroscope
 * and Parca read it as one.  Lua functions carry file and line numbers, so
 * nothing ever tries to symbolize them. */
#include "report/export.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/textsafe.h"
#include "report/export_stack.h"
#include "report/view_jit.h"
#include "model/frame_fmt.h"
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
	const struct profile *p;
	struct export_opts o;
	char name_scope;		/* 'f' or 'F': lines live in Location */
	struct keytab strings;		/* string_table, index = string id */
	struct keytab functions;	/* function key -> id - 1 */
	struct keytab locations;	/* location key -> id - 1 */
	struct keytab mappings;		/* mapping key -> id - 2 (1 is MAPPING_LUA) */
	struct strbuf functions_pb, locations_pb, samples_pb, mappings_pb;
	struct strbuf msg, sub, text;	/* scratch */
};

struct function_key {
	uint64_t name, system_name, filename;
	int64_t start_line;
};

struct location_key {
	uint64_t function_id;
	int64_t line;
	uint64_t mapping_id, address;
};

/* A C function's file mapping in the target, as /proc/PID/maps gave it:
 * with the build ID, a backend with the debug info can symbolize the
 * address later. */
struct mapping_key {
	uint64_t start, limit, offset, filename, build_id;
};

/* proto3 strings must be valid UTF-8 (protoc refuses others), and the
 * names are shown on terminals (go tool pprof -top): control characters
 * are escaped by the rule of base/textsafe.h. */
static uint64_t str_id(struct pprof_builder *b, const char *s, size_t n)
{
	struct strbuf valid = STRBUF_INIT, shown = STRBUF_INIT;
	uint64_t id;

	utf8_put_valid(&valid, s, n);
	text_put_escaped(&shown, sb_str(&valid), valid.len, "", TEXT_ESC_HEX);
	id = keytab_intern(&b->strings, sb_str(&shown), shown.len, NULL);
	sb_free(&valid);
	sb_free(&shown);
	return id;
}

static uint64_t cstr_id(struct pprof_builder *b, const char *s)
{
	return str_id(b, s, strlen(s));
}

static void put_value_type(struct pprof_builder *b, struct strbuf *out, uint32_t field,
			   const char *type, const char *unit)
{
	sb_reset(&b->sub);
	pb_uint(&b->sub, VALUETYPE_TYPE, cstr_id(b, type));
	pb_uint(&b->sub, VALUETYPE_UNIT, cstr_id(b, unit));
	pb_bytes(out, field, b->sub.buf, b->sub.len);
}

static uint64_t function_id(struct pprof_builder *b, const struct xframe *xf,
			    const struct sample *s)
{
	struct function_key key;
	struct strbuf sub = STRBUF_INIT;
	bool added;
	uint64_t id;

	memset(&key, 0, sizeof(key));
	sb_reset(&b->text);
	if (xf->kind == XF_FRAME) {
		const struct frame_sym *f = xf->sym;
		struct frame_sym anon = *f;

		frame_put(&b->text, f, b->name_scope, b->o.pathstrip);
		key.name = str_id(b, sb_str(&b->text), b->text.len);
		/* The caller-independent name jit.p falls back to, full path. */
		anon.name = NULL;
		sb_reset(&b->text);
		frame_put(&b->text, &anon, 'f', false);
		if (f->csym) {	/* --native: the C function's own symbol */
			sb_reset(&b->text);
			sb_puts(&b->text, f->csym);
		}
		key.system_name = str_id(b, sb_str(&b->text), b->text.len);
		sb_reset(&b->text);
		export_chunk_file(&b->text, f);
		key.filename = str_id(b, sb_str(&b->text), b->text.len);
		key.start_line = f->kind == FRAME_LUA && f->firstline > 0 ? f->firstline : 0;
	} else {
		xframe_put(&b->text, xf, b->p, s, &b->o);
		key.name = key.system_name = str_id(b, sb_str(&b->text), b->text.len);
	}
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

/* The current line, or the definition line when unknown, as 'l' prints. */
static int64_t frame_line(const struct xframe *xf)
{
	const struct frame_sym *f = xf->sym;

	if (xf->kind != XF_FRAME || f->kind != FRAME_LUA)
		return 0;
	if (f->line >= 0)
		return f->line;
	return f->firstline > 0 ? f->firstline : 0;
}

static uint64_t mapping_id(struct pprof_builder *b, const struct xframe *xf)
{
	const struct frame_sym *f = xf->sym;
	struct mapping_key key;
	struct strbuf sub = STRBUF_INIT;
	bool added;
	uint64_t id;

	if (xf->kind != XF_FRAME || (f->kind != FRAME_C && f->kind != FRAME_NATIVE) ||
	    !f->map_file)
		return MAPPING_LUA;
	memset(&key, 0, sizeof(key));
	key.start = f->map_start;
	key.limit = f->map_limit;
	key.offset = f->map_offset;
	key.filename = cstr_id(b, f->map_file);
	key.build_id = cstr_id(b, f->map_build_id ? f->map_build_id : "");
	id = keytab_intern(&b->mappings, &key, sizeof(key), &added) + 2;
	if (added) {
		pb_uint(&sub, MAPPING_ID, id);
		pb_uint(&sub, MAPPING_MEMORY_START, key.start);
		pb_uint(&sub, MAPPING_MEMORY_LIMIT, key.limit);
		pb_uint(&sub, MAPPING_FILE_OFFSET, key.offset);
		pb_uint(&sub, MAPPING_FILENAME, key.filename);
		pb_uint(&sub, MAPPING_BUILD_ID, key.build_id);
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
	struct strbuf sub = STRBUF_INIT, line = STRBUF_INIT;
	bool added;
	uint64_t id;

	memset(&key, 0, sizeof(key));
	key.function_id = function_id(b, xf, s);
	key.line = frame_line(xf);
	key.mapping_id = mapping_id(b, xf);
	if (key.mapping_id != MAPPING_LUA)
		key.address = xf->sym->cfunc;
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

static void put_label_str(struct pprof_builder *b, const char *key, const char *value)
{
	sb_reset(&b->sub);
	pb_uint(&b->sub, LABEL_KEY, cstr_id(b, key));
	pb_uint(&b->sub, LABEL_STR, cstr_id(b, value));
	pb_bytes(&b->msg, SAMPLE_LABEL, b->sub.buf, b->sub.len);
}

static void put_label_num(struct pprof_builder *b, const char *key, int64_t value)
{
	sb_reset(&b->sub);
	pb_uint(&b->sub, LABEL_KEY, cstr_id(b, key));
	pb_int(&b->sub, LABEL_NUM, value);
	pb_bytes(&b->msg, SAMPLE_LABEL, b->sub.buf, b->sub.len);
}

/* --jit: "start -- message [at line]" of the latest abort seen for the
 * sample's function. */
static void put_jit_label(struct pprof_builder *b, const struct sample *s)
{
	const struct jw_abort *a;
	char key[JW_LOC];

	if (!b->o.jit || view_jit_key(s, key, sizeof(key)))
		return;
	a = view_jit_abort_of(b->o.jit, key);
	if (!a)
		return;
	sb_reset(&b->text);
	sb_printf(&b->text, "%s -- %s%s%s", a->start, a->text, a->at[0] ? " at " : "", a->at);
	put_label_str(b, "jit_abort", sb_str(&b->text));
}

static void put_sample(struct pprof_builder *b, const struct sample *s,
		       struct xstack *st, uint64_t period)
{
	uint64_t *ids = calloc(st->n + 1, sizeof(*ids));
	bool ns = profile_unit_ns(b->p);
	/* Off-CPU and wall counts are nanoseconds already. */
	uint64_t values[2] = { ns ? s->events : s->count, ns ? s->count : s->count * period };
	bool host = s->flags & PSAMPLE_HOST;

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
	put_label_num(b, "pid", s->pid);
	put_label_num(b, "tid", s->tid);
	put_label_str(b, "comm", profile_comm(b->p, s->pid));
	if (ns)
		put_label_str(b, "state", !(s->flags & PSAMPLE_OFFCPU) ? "running" :
				  s->flags & PSAMPLE_WAITING ? "waiting" : "blocked");
	if (!host) {
		char letter[2] = { vm_class_letter(vm_class_of(s->vmstate)), 0 };

		put_label_str(b, "vmstate", letter);
		if (s->vmstate >= 1)
			put_label_num(b, "trace", s->vmstate);
		if (s->vmstate >= 1 && s->trace_start)
			put_label_str(b, "trace_start", s->trace_start);
		if (s->zone)
			put_label_str(b, "zone", s->zone);
		put_jit_label(b, s);
	}
	pb_bytes(&b->samples_pb, PROFILE_SAMPLE, b->msg.buf, b->msg.len);
	free(ids);
}

/* The second type is the default one (pprof's last): CPU, off-CPU or wall
 * time. */
static const char *time_type(const struct profile *p)
{
	switch (p->event) {
	case PROFILE_OFFCPU:
		return "off_cpu";
	case PROFILE_WALL:
		return "wall";
	case PROFILE_CPU:
	case PROFILE_ALLOC:	/* put_header gives alloc_space instead */
		break;
	}
	return "cpu";
}

static void put_header(struct pprof_builder *b, struct strbuf *pb)
{
	/* -e alloc: a sample is alloc_every bytes allocated. */
	if (b->p->alloc_every) {
		put_value_type(b, pb, PROFILE_SAMPLE_TYPE, "samples", "count");
		put_value_type(b, pb, PROFILE_SAMPLE_TYPE, "alloc_space", "bytes");
		put_value_type(b, pb, PROFILE_PERIOD_TYPE, "space", "bytes");
		return;
	}
	put_value_type(b, pb, PROFILE_SAMPLE_TYPE, "samples", "count");
	put_value_type(b, pb, PROFILE_SAMPLE_TYPE, time_type(b->p), "nanoseconds");
	put_value_type(b, pb, PROFILE_PERIOD_TYPE, time_type(b->p), "nanoseconds");
}

static void put_mapping(struct pprof_builder *b, struct strbuf *pb)
{
	sb_reset(&b->sub);
	pb_uint(&b->sub, MAPPING_ID, MAPPING_LUA);
	pb_uint(&b->sub, MAPPING_FILENAME, cstr_id(b, "[lua]"));
	pb_bool(&b->sub, MAPPING_HAS_FUNCTIONS, 1);
	pb_bool(&b->sub, MAPPING_HAS_FILENAMES, 1);
	pb_bool(&b->sub, MAPPING_HAS_LINE_NUMBERS, 1);
	pb_bytes(pb, PROFILE_MAPPING, b->sub.buf, b->sub.len);
}

/* Encodes the uncompressed Profile message into pb. */
static void pprof_build(struct pprof_builder *b, struct strbuf *pb)
{
	const struct profile *p = b->p;
	uint64_t period = p->alloc_every ? p->alloc_every : p->hz ? 1000000000ull / p->hz : 0;
	struct xstack st = { 0 };
	uint64_t comment;

	cstr_id(b, "");		/* string_table[0] must be "" */
	put_header(b, pb);
	for (size_t i = 0; i < p->nsamples; i++) {
		if (!p->samples[i].count)
			continue;
		xstack_build(&st, &p->samples[i], &b->o, 0);
		put_sample(b, &p->samples[i], &st, period);
	}
	sb_putn(pb, sb_str(&b->samples_pb), b->samples_pb.len);
	put_mapping(b, pb);
	sb_putn(pb, sb_str(&b->mappings_pb), b->mappings_pb.len);
	sb_putn(pb, sb_str(&b->locations_pb), b->locations_pb.len);
	sb_putn(pb, sb_str(&b->functions_pb), b->functions_pb.len);
	sb_reset(&b->text);
	if (p->alloc_every)
		sb_printf(&b->text, "luabpfprof: allocations, one sample per %llu bytes, %llu samples, "
			  "frame names '%c'", (unsigned long long)p->alloc_every,
			  (unsigned long long)p->total, b->name_scope);
	else if (profile_unit_ns(p))
		sb_printf(&b->text, "luabpfprof: %s, %u Hz, %.3f s, frame names '%c'",
			  profile_event_name(p->event), p->hz, (double)p->total / 1e9,
			  b->name_scope);
	else
		sb_printf(&b->text, "luabpfprof: %u Hz, %llu samples, frame names '%c'", p->hz,
			  (unsigned long long)p->total, b->name_scope);
	comment = str_id(b, sb_str(&b->text), b->text.len);
	/* Every string is interned by now: the table can go out. */
	for (uint32_t i = 0; i < b->strings.n; i++)
		pb_bytes(pb, PROFILE_STRING_TABLE, b->strings.keys[i], b->strings.lens[i]);
	pb_uint(pb, PROFILE_TIME_NANOS, p->start_ns);
	pb_uint(pb, PROFILE_DURATION_NANOS, p->duration_ns);
	pb_uint(pb, PROFILE_PERIOD, period);
	pb_uint(pb, PROFILE_COMMENT, comment);
	xstack_free(&st);
}

/* gzip, not zlib: pprof rejects a zlib-wrapped stream. */
static int gzip_append(struct strbuf *gz, const void *data, size_t n)
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
	b.p = p;
	if (export_opts_norm(&b.o, opts))
		return -1;
	b.name_scope = b.o.scope == 'l' ? 'F' : b.o.scope;
	pprof_build(&b, &pb);
	err = gzip_append(gz, sb_str(&pb), pb.len);
	sb_free(&pb);
	keytab_free(&b.strings);
	keytab_free(&b.functions);
	keytab_free(&b.locations);
	keytab_free(&b.mappings);
	sb_free(&b.mappings_pb);
	sb_free(&b.functions_pb);
	sb_free(&b.locations_pb);
	sb_free(&b.samples_pb);
	sb_free(&b.msg);
	sb_free(&b.sub);
	sb_free(&b.text);
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
