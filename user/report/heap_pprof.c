// SPDX-License-Identifier: MIT
/* Heap paths as pprof (see heap_pprof.h).  Field numbers are those of
 * pprof's profile.proto. */
#include "report/heap_pprof.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/pbwriter.h"
#include "base/strbuf.h"
#include "model/heap_census.h"
#include "model/heap_paths.h"

enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5, PROFILE_STRING_TABLE = 6, PROFILE_TIME_NANOS = 9,
	PROFILE_DEFAULT_SAMPLE_TYPE = 14,
	VALUETYPE_TYPE = 1, VALUETYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2,
	LOCATION_ID = 1, LOCATION_LINE = 4, LINE_FUNCTION_ID = 1,
	FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3,
};

/* Fixed strings first; path i's label is string FIRST_LABEL + i. */
static const char *const fixed[] = { "", "inuse_objects", "count", "inuse_space", "bytes" };
#define FIRST_LABEL	(sizeof(fixed) / sizeof(fixed[0]))
#define NAME_MAX_PPROF	1024

static void value_type(struct strbuf *pb, struct strbuf *sub, uint64_t type, uint64_t unit)
{
	sb_reset(sub);
	pb_uint(sub, VALUETYPE_TYPE, type);
	pb_uint(sub, VALUETYPE_UNIT, unit);
	pb_bytes(pb, PROFILE_SAMPLE_TYPE, sub->buf, sub->len);
}

static void put_sample(struct strbuf *pb, struct strbuf *sub, const struct heap_paths *hp,
		       uint32_t i, uint64_t *ids)
{
	uint64_t values[2] = { hp->p[i].self_count, hp->p[i].self_bytes };
	size_t n = 0;

	for (uint32_t p = i; p != HEAP_PATH_NONE && n <= HEAP_PATH_MAX_DEPTH + 1;
	     p = hp->p[p].parent)
		ids[n++] = (uint64_t)p + 1;
	sb_reset(sub);
	pb_packed(sub, SAMPLE_LOCATION_ID, ids, n);
	pb_packed(sub, SAMPLE_VALUE, values, 2);
	pb_bytes(pb, PROFILE_SAMPLE, sub->buf, sub->len);
}

/* VM buffers, frames after the paths': "[VM buffers]" over each buffer,
 * so that the profile's total is the census's accounted bytes. */
const char heap_vm_buffers_root[] = "[VM buffers]";
const char *const heap_vm_buffer_names[HEAP_VM_BUFFERS] = { "string table", "string buffer" };
#define NBUFFERS	(1 + HEAP_VM_BUFFERS)

uint64_t heap_vm_buffer_bytes(const struct heap_census *c, int which)
{
	return which == 0 ? c->strtab_bytes : which == 1 ? c->tmpbuf_bytes : 0;
}

static void put_buffer(struct strbuf *pb, struct strbuf *sub, uint32_t npaths, uint32_t which,
		       uint64_t bytes)
{
	uint64_t ids[2] = { (uint64_t)npaths + which + 1, (uint64_t)npaths + 1 };
	uint64_t values[2] = { 1, bytes };

	if (!bytes)
		return;
	sb_reset(sub);
	pb_packed(sub, SAMPLE_LOCATION_ID, ids, 2);
	pb_packed(sub, SAMPLE_VALUE, values, 2);
	pb_bytes(pb, PROFILE_SAMPLE, sub->buf, sub->len);
}

static void put_frame(struct strbuf *pb, struct strbuf *sub, struct strbuf *line, uint32_t i)
{
	uint64_t id = (uint64_t)i + 1, name = FIRST_LABEL + i;

	sb_reset(sub);
	pb_uint(sub, FUNCTION_ID, id);
	pb_uint(sub, FUNCTION_NAME, name);
	pb_uint(sub, FUNCTION_SYSTEM_NAME, name);
	pb_bytes(pb, PROFILE_FUNCTION, sub->buf, sub->len);
	sb_reset(line);
	pb_uint(line, LINE_FUNCTION_ID, id);
	sb_reset(sub);
	pb_uint(sub, LOCATION_ID, id);
	pb_bytes(sub, LOCATION_LINE, line->buf, line->len);
	pb_bytes(pb, PROFILE_LOCATION, sub->buf, sub->len);
}

/* gzip (not zlib) framing: pprof reads gzip or raw protobuf. */
static int write_gzip(FILE *f, const void *data, size_t n)
{
	z_stream zs;
	uLong bound;
	unsigned char *out;
	int ok;

	memset(&zs, 0, sizeof(zs));
	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	bound = deflateBound(&zs, (uLong)n);
	out = malloc(bound);
	zs.next_in = (Bytef *)(uintptr_t)data;
	zs.avail_in = (uInt)n;
	zs.next_out = out;
	zs.avail_out = (uInt)bound;
	ok = out && deflate(&zs, Z_FINISH) == Z_STREAM_END &&
	     fwrite(out, 1, zs.total_out, f) == zs.total_out;
	deflateEnd(&zs);
	free(out);
	return ok ? 0 : -1;
}

int heap_pprof_write(FILE *f, const struct heap_paths *hp, const struct heap_census *c,
		     uint64_t time_ns)
{
	struct strbuf pb = STRBUF_INIT, sub = STRBUF_INIT, line = STRBUF_INIT;
	uint64_t ids[HEAP_PATH_MAX_DEPTH + 2];
	char name[NAME_MAX_PPROF];
	int rc;

	value_type(&pb, &sub, 1, 2);
	value_type(&pb, &sub, 3, 4);
	for (uint32_t i = 0; i < hp->n; i++)
		if (hp->p[i].self_count)
			put_sample(&pb, &sub, hp, i, ids);
	for (int b = 0; b < HEAP_VM_BUFFERS; b++)
		put_buffer(&pb, &sub, (uint32_t)hp->n, 1 + b, heap_vm_buffer_bytes(c, b));
	for (uint32_t i = 0; i < hp->n + NBUFFERS; i++)
		put_frame(&pb, &sub, &line, i);
	for (size_t i = 0; i < FIRST_LABEL; i++)
		pb_bytes(&pb, PROFILE_STRING_TABLE, fixed[i], strlen(fixed[i]));
	/* A frame is named by its whole path, so that `pprof -top` tells
	 * _G.a[*] from _G.b[*]. */
	for (uint32_t i = 0; i < hp->n; i++) {
		heap_path_name(hp, i, "", name, sizeof(name));
		pb_bytes(&pb, PROFILE_STRING_TABLE, name, strlen(name));
	}
	pb_bytes(&pb, PROFILE_STRING_TABLE, heap_vm_buffers_root, strlen(heap_vm_buffers_root));
	for (int b = 0; b < HEAP_VM_BUFFERS; b++)
		pb_bytes(&pb, PROFILE_STRING_TABLE, heap_vm_buffer_names[b],
			 strlen(heap_vm_buffer_names[b]));
	pb_uint(&pb, PROFILE_TIME_NANOS, time_ns);
	pb_int(&pb, PROFILE_DEFAULT_SAMPLE_TYPE, 3);
	rc = write_gzip(f, pb.buf, pb.len);
	sb_free(&pb);
	sb_free(&sub);
	sb_free(&line);
	return rc;
}
