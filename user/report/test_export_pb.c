// SPDX-License-Identifier: MIT
/* The protobuf writer, then pprof_encode's output inflated and decoded by a
 * small independent reader written here. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "report/export.h"
#include "base/pbwriter.h"
#include "report/test_export_fixture.h"
#include "base/unit.h"

/* ---- a minimal protobuf reader ---- */

struct pb_reader {
	const unsigned char *p, *end;
	int bad;
};

static uint64_t rd_varint(struct pb_reader *r)
{
	uint64_t v = 0;

	for (int shift = 0; shift < 70; shift += 7) {
		unsigned char c;

		if (r->p >= r->end) {
			r->bad = 1;
			return 0;
		}
		c = *r->p++;
		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
	}
	r->bad = 1;
	return 0;
}

struct pb_field {
	uint32_t num;
	int wire;
	uint64_t v;			/* varint */
	const unsigned char *data;	/* length-delimited */
	size_t len;
};

/* Next field, or 0 at the end or on malformed input (r->bad). */
static int rd_field(struct pb_reader *r, struct pb_field *f)
{
	uint64_t key;

	if (r->p >= r->end || r->bad)
		return 0;
	key = rd_varint(r);
	f->num = (uint32_t)(key >> 3);
	f->wire = (int)(key & 7);
	f->data = NULL;
	f->len = 0;
	f->v = 0;
	if (f->wire == 0) {
		f->v = rd_varint(r);
	} else if (f->wire == 2) {
		f->len = rd_varint(r);
		if (f->len > (size_t)(r->end - r->p)) {
			r->bad = 1;
			return 0;
		}
		f->data = r->p;
		r->p += f->len;
	} else {
		r->bad = 1;
		return 0;
	}
	return !r->bad && f->num;
}

static struct pb_reader reader(const void *data, size_t len)
{
	struct pb_reader r = { data, (const unsigned char *)data + len, 0 };

	return r;
}

static int bytes_eq(const struct strbuf *sb, const char *want, size_t n)
{
	return sb->len == n && !memcmp(sb->buf, want, n);
}

static void check_writer(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct pb_reader r;
	struct pb_field f;
	uint64_t packed[] = { 1, 300, 0, UINT64_MAX };

	pb_varint(&sb, 0);
	CHECK("varint 0", bytes_eq(&sb, "\x00", 1));
	sb_reset(&sb);
	pb_varint(&sb, 127);
	CHECK("varint 127", bytes_eq(&sb, "\x7f", 1));
	sb_reset(&sb);
	pb_varint(&sb, 300);
	CHECK("varint 300", bytes_eq(&sb, "\xac\x02", 2));
	sb_reset(&sb);
	pb_varint(&sb, UINT64_MAX);
	CHECK("varint max is 10 bytes",
	      bytes_eq(&sb, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 10));
	sb_reset(&sb);
	pb_int(&sb, 2, -1);
	CHECK("negative int64 is 10 bytes of two's complement",
	      bytes_eq(&sb, "\x10\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11));
	sb_reset(&sb);
	pb_uint(&sb, 1, 0);
	pb_bool(&sb, 7, 0);
	CHECK("zero scalars are left out", sb.len == 0);
	pb_bytes(&sb, 6, "", 0);
	CHECK("empty string is written", bytes_eq(&sb, "\x32\x00", 2));
	sb_reset(&sb);
	pb_packed(&sb, 1, packed, 0);
	CHECK("empty packed field is left out", sb.len == 0);

	/* A message with every kind, read back. */
	pb_uint(&sb, 1, 150);
	pb_bytes(&sb, 2, "testing", 7);
	pb_packed(&sb, 3, packed, 4);
	pb_bool(&sb, 4, 1);
	pb_uint(&sb, 536870911, 5);	/* the largest field number */
	CHECK("field 1 = 150 encodes as 08 96 01", !memcmp(sb.buf, "\x08\x96\x01", 3));
	r = reader(sb.buf, sb.len);
	CHECK("read varint field", rd_field(&r, &f) && f.num == 1 && f.wire == 0 && f.v == 150);
	CHECK("read bytes field", rd_field(&r, &f) && f.num == 2 && f.wire == 2 &&
	      f.len == 7 && !memcmp(f.data, "testing", 7));
	CHECK("read packed field", rd_field(&r, &f) && f.num == 3 && f.wire == 2);
	{
		struct pb_reader pr = reader(f.data, f.len);
		uint64_t got[4];

		for (int i = 0; i < 4; i++)
			got[i] = rd_varint(&pr);
		CHECK("packed values", !pr.bad && pr.p == pr.end &&
		      !memcmp(got, packed, sizeof(got)));
	}
	CHECK("read bool field", rd_field(&r, &f) && f.num == 4 && f.v == 1);
	CHECK("read field 2^29-1", rd_field(&r, &f) && f.num == 536870911 && f.v == 5);
	CHECK("message fully consumed", !rd_field(&r, &f) && !r.bad);
	sb_free(&sb);
}

/* ---- pprof_encode, decoded ---- */

static int gunzip(const struct strbuf *gz, struct strbuf *out)
{
	z_stream zs;
	char buf[16384];
	int rc;

	memset(&zs, 0, sizeof(zs));
	/* 15 + 16: gzip only, so a zlib stream would fail here as in pprof. */
	if (inflateInit2(&zs, 15 + 16) != Z_OK)
		return -1;
	zs.next_in = (Bytef *)gz->buf;
	zs.avail_in = (uInt)gz->len;
	do {
		zs.next_out = (Bytef *)buf;
		zs.avail_out = sizeof(buf);
		rc = inflate(&zs, Z_NO_FLUSH);
		sb_putn(out, buf, sizeof(buf) - zs.avail_out);
	} while (rc == Z_OK);
	inflateEnd(&zs);
	return rc == Z_STREAM_END ? 0 : -1;
}

#define MAXN 256

struct decoded {
	int nstrings;
	const unsigned char *str[MAXN];
	size_t strlen_[MAXN];
	int nsample_types, nsamples, nlocations, nfunctions, nmappings;
	uint64_t period, time_nanos, duration_nanos;
	uint64_t sample_count_sum, sample_cpu_sum;
	int values_ok, locations_resolve, functions_resolve;
	uint64_t loc_ids[MAXN], func_ids[MAXN];
	uint64_t loc_func[MAXN];
	uint64_t func_name[MAXN];
	int mapping_flags;
	uint64_t period_type_type;
	int bad;
	int no_location;	/* samples without a location: pprof drops them */
};

static int str_is(const struct decoded *d, uint64_t idx, const char *s)
{
	return idx < (uint64_t)d->nstrings && d->strlen_[idx] == strlen(s) &&
	       !memcmp(d->str[idx], s, d->strlen_[idx]);
}

static void decode_sample(struct decoded *d, const struct pb_field *sf, uint64_t **ids,
			  size_t *nids)
{
	struct pb_reader r = reader(sf->data, sf->len);
	struct pb_field f;
	uint64_t values[4];
	int nvalues = 0;
	size_t first = *nids;

	while (rd_field(&r, &f)) {
		struct pb_reader pr = reader(f.data, f.len);

		if (f.num == 1 && f.wire == 2) {
			while (pr.p < pr.end && *nids < MAXN)
				(*ids)[(*nids)++] = rd_varint(&pr);
		} else if (f.num == 2 && f.wire == 2) {
			while (pr.p < pr.end && nvalues < 4)
				values[nvalues++] = rd_varint(&pr);
		}
	}
	d->bad |= r.bad;
	if (*nids == first)
		d->no_location++;
	if (nvalues != 2 || values[1] != values[0] * 10000000ull)
		d->values_ok = 0;
	if (nvalues == 2) {
		d->sample_count_sum += values[0];
		d->sample_cpu_sum += values[1];
	}
}

static void decode_profile(const struct strbuf *pb, struct decoded *d)
{
	struct pb_reader r = reader(pb->buf, pb->len);
	struct pb_field f;
	uint64_t sample_locs[MAXN * 8], *ids = sample_locs;
	size_t nids = 0;

	memset(d, 0, sizeof(*d));
	d->values_ok = d->locations_resolve = d->functions_resolve = 1;
	while (rd_field(&r, &f)) {
		struct pb_reader sr = reader(f.data, f.len);
		struct pb_field g;

		switch (f.num) {
		case 1:
			d->nsample_types++;
			break;
		case 2:
			d->nsamples++;
			decode_sample(d, &f, &ids, &nids);
			break;
		case 3:
			d->nmappings++;
			while (rd_field(&sr, &g))
				if (g.num >= 7 && g.num <= 9 && g.v == 1)
					d->mapping_flags |= 1 << (g.num - 7);
			break;
		case 4:
			while (rd_field(&sr, &g)) {
				if (g.num == 1 && d->nlocations < MAXN)
					d->loc_ids[d->nlocations] = g.v;
				if (g.num == 4) {
					struct pb_reader lr = reader(g.data, g.len);
					struct pb_field h;

					while (rd_field(&lr, &h))
						if (h.num == 1 && d->nlocations < MAXN)
							d->loc_func[d->nlocations] = h.v;
				}
			}
			d->nlocations++;
			break;
		case 5:
			while (rd_field(&sr, &g)) {
				if (g.num == 1 && d->nfunctions < MAXN)
					d->func_ids[d->nfunctions] = g.v;
				if (g.num == 2 && d->nfunctions < MAXN)
					d->func_name[d->nfunctions] = g.v;
			}
			d->nfunctions++;
			break;
		case 6:
			if (d->nstrings < MAXN) {
				d->str[d->nstrings] = f.data;
				d->strlen_[d->nstrings] = f.len;
			}
			d->nstrings++;
			break;
		case 9: d->time_nanos = f.v; break;
		case 10: d->duration_nanos = f.v; break;
		case 11:
			while (rd_field(&sr, &g))
				if (g.num == 1)
					d->period_type_type = g.v;
			break;
		case 12: d->period = f.v; break;
		}
	}
	d->bad |= r.bad;
	for (size_t i = 0; i < nids; i++) {
		int found = 0;

		for (int k = 0; k < d->nlocations && k < MAXN; k++)
			found |= d->loc_ids[k] == sample_locs[i];
		d->locations_resolve &= found && sample_locs[i] != 0;
	}
	for (int i = 0; i < d->nlocations && i < MAXN; i++) {
		int found = 0;

		for (int k = 0; k < d->nfunctions && k < MAXN; k++)
			found |= d->func_ids[k] == d->loc_func[i];
		d->functions_resolve &= found;
	}
}

static int has_function(const struct decoded *d, const char *name)
{
	for (int i = 0; i < d->nfunctions && i < MAXN; i++)
		if (str_is(d, d->func_name[i], name))
			return 1;
	return 0;
}

static void check_pprof(void)
{
	struct profile *p = fix_profile(), *empty = profile_new(100);
	struct strbuf gz = STRBUF_INIT, pb = STRBUF_INIT;
	struct decoded *d = calloc(1, sizeof(*d));
	struct export_opts bad = { .scope = 'x' };

	sb_puts(&gz, "prefix");
	CHECK("pprof_encode succeeds", pprof_encode(p, NULL, &gz) == 0);
	CHECK("pprof_encode appends", gz.len > 6 && !memcmp(gz.buf, "prefix", 6));
	memmove(gz.buf, gz.buf + 6, gz.len - 6);
	gz.len -= 6;
	CHECK("gzip header", (unsigned char)gz.buf[0] == 0x1f &&
	      (unsigned char)gz.buf[1] == 0x8b);
	CHECK("gunzip", gunzip(&gz, &pb) == 0);
	decode_profile(&pb, d);
	CHECK("decodes cleanly", !d->bad);
	CHECK("string_table[0] is empty", d->nstrings > 0 && d->strlen_[0] == 0);
	CHECK("two sample types", d->nsample_types == 2);
	CHECK("period type is cpu", str_is(d, d->period_type_type, "cpu"));
	CHECK("one sample per class", d->nsamples == 11);
	CHECK("values are [n, n * period]", d->values_ok);
	CHECK("counts add up", d->sample_count_sum == FIX_TOTAL &&
	      d->sample_cpu_sum == FIX_TOTAL * 10000000ull);
	CHECK("period 1e9 / hz", d->period == 10000000ull);
	CHECK("time and duration", d->time_nanos == 1700000000123456789ull &&
	      d->duration_nanos == 2500000000ull);
	CHECK("one mapping with functions, filenames, lines",
	      d->nmappings == 1 && d->mapping_flags == 7);
	CHECK("location ids resolve", d->locations_resolve);
	CHECK("function ids resolve", d->functions_resolve);
	CHECK("function names", has_function(d, "main.lua:work") &&
	      has_function(d, "@0x55b303d132c0") && has_function(d, "string.rep") &&
	      has_function(d, "[host]") && has_function(d, "[unknown: truncated]") &&
	      has_function(d, "[Garbage Collector]") && has_function(d, "[JIT Compiler]") &&
	      has_function(d, "x&y.lua:a;b<c>&\"q'"));
	CHECK("invalid UTF-8 replaced in strings",
	      has_function(d, "main.lua:bad\xef\xbf\xbdname"));
	/* work has two current lines: two locations, one function.  GC and JIT
	 * compiler time have a frame each (issue 12). */
	CHECK("functions and locations", d->nfunctions == 15 && d->nlocations == 16);

	sb_reset(&gz);
	sb_reset(&pb);
	CHECK("empty profile encodes", pprof_encode(empty, NULL, &gz) == 0 &&
	      gunzip(&gz, &pb) == 0);
	decode_profile(&pb, d);
	CHECK("empty profile: header only", !d->bad && d->nsamples == 0 &&
	      d->nsample_types == 2 && d->nstrings > 0 && d->strlen_[0] == 0);

	sb_reset(&gz);
	CHECK("bad scope is refused", pprof_encode(p, &bad, &gz) == -1 && gz.len == 0);
	free(d);
	sb_free(&gz);
	sb_free(&pb);
	profile_free(p);
	profile_free(empty);
}

/* A C frame named from its file: its Location has the address and points
 * at a Mapping of that file with its addresses and build ID. */
static void check_pprof_mapping(void)
{
	struct profile *p = profile_new(100);
	struct frame_sym c = {
		.kind = SYM_C, .cfunc = 0x7f0000012340ull, .line = -1, .cname = "ngx.say",
		.map_file = "/usr/lib/mod.so", .map_build_id = "0123abcd",
		.map_start = 0x7f0000010000ull, .map_limit = 0x7f0000020000ull,
		.map_offset = 0x3000,
	};
	struct frame_sym lua = { .kind = SYM_LUA, .chunk = "@a.lua", .firstline = 1, .line = 2 };
	const struct frame_sym *frames[2];
	struct sample smp = { .pid = 1, .tid = 1, .vmstate = -2, .count = 3, .nframes = 2 };
	struct strbuf gz = STRBUF_INIT, pb = STRBUF_INIT;
	struct pb_reader r;
	struct pb_field f, g;
	uint64_t strs = 0, m2[7] = { 0 }, c_addr = 0, c_map = 0, lua_map = 0;
	const unsigned char *str[64];
	size_t slen[64];
	int nmap = 0;

	frames[0] = profile_frame(p, &c);
	frames[1] = profile_frame(p, &lua);
	smp.frames = frames;
	profile_add(p, &smp);
	CHECK("pprof with a C frame encodes", !pprof_encode(p, NULL, &gz) && !gunzip(&gz, &pb));
	r = reader(pb.buf, pb.len);
	while (rd_field(&r, &f)) {
		struct pb_reader sr = reader(f.data, f.len);
		uint64_t v[8] = { 0 };

		if (f.num == 6 && strs < 64) {
			str[strs] = f.data;
			slen[strs++] = f.len;
		}
		if (f.num != 3 && f.num != 4)
			continue;
		while (rd_field(&sr, &g))
			if (g.num < 8)
				v[g.num] = g.v;
		if (f.num == 3 && ++nmap == 2)
			memcpy(m2, v, sizeof(m2));
		if (f.num == 4 && v[3]) {
			c_addr = v[3];
			c_map = v[2];
		} else if (f.num == 4) {
			lua_map = v[2];
		}
	}
	CHECK("two mappings: [lua] and the C function's file", nmap == 2 && m2[1] == 2);
	CHECK("the file's start, limit and offset", m2[2] == c.map_start &&
	      m2[3] == c.map_limit && m2[4] == c.map_offset);
	CHECK("the file's name and build ID",
	      m2[5] < strs && slen[m2[5]] == 15 && !memcmp(str[m2[5]], "/usr/lib/mod.so", 15) &&
	      m2[6] < strs && slen[m2[6]] == 8 && !memcmp(str[m2[6]], "0123abcd", 8));
	CHECK("the C frame's location: its address, that mapping",
	      c_addr == c.cfunc && c_map == 2);
	CHECK("the Lua frame's location: the [lua] mapping, no address", lua_map == 1);
	sb_free(&gz);
	sb_free(&pb);
	profile_free(p);
}

/* Issue 12: unreadable stacks are [unknown: CAUSE] locations, so pprof
 * keeps them in its total. */
static void check_pprof_unknown(void)
{
	struct profile *p = profile_new(100);
	struct frame_sym w = { .kind = SYM_LUA, .name = "work", .chunk = "@t.lua",
			       .firstline = 1, .line = 2 };
	struct frame_sym cut = { .kind = SYM_UNKNOWN, .name = "bad frame", .line = -1 };
	const struct frame_sym *partial[2];
	struct sample s1 = { .pid = 1, .tid = 1, .vmstate = -1, .count = 3, .nframes = 2,
			     .frames = partial };
	struct sample s2 = { .pid = 1, .tid = 1, .vmstate = -1, .count = 2, .frames = partial };
	struct strbuf gz = STRBUF_INIT, pb = STRBUF_INIT;
	struct decoded *d = calloc(1, sizeof(*d));

	partial[0] = profile_frame(p, &w);
	partial[1] = profile_frame(p, &cut);
	profile_add(p, &s1);
	profile_add(p, &s2);
	CHECK("unknown: pprof encodes", pprof_encode(p, NULL, &gz) == 0 && gunzip(&gz, &pb) == 0);
	decode_profile(&pb, d);
	CHECK("unknown: every sample has a location, all counted", !d->bad && d->nsamples == 2 &&
	      !d->no_location && d->sample_count_sum == 5);
	CHECK("unknown: the causes are functions", has_function(d, "[unknown: bad frame]") &&
	      has_function(d, "[unknown: empty stack]"));
	free(d);
	sb_free(&gz);
	sb_free(&pb);
	profile_free(p);
}

int main(void)
{
	check_writer();
	check_pprof();
	check_pprof_mapping();
	check_pprof_unknown();
	UNIT_EXIT();
}
