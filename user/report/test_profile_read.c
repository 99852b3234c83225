// SPDX-License-Identifier: MIT
/* Reading profiles back: the exporters' pprof and folded output of the
 * shared fixture read into a stackset and counted by each view's key,
 * then damaged input (every truncation, random bytes, a bad gzip) read
 * without a crash. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/unit.h"
#include "model/diff_keys.h"
#include "report/diff_out.h"
#include "report/export.h"
#include "report/otlp.h"
#include "report/profile_read.h"
#include "report/test_export_fixture.h"

static uint64_t count_of(const struct stackset *s, char view, const char *key)
{
	struct diff_table t;
	const struct diff_row *r;
	uint64_t n;

	diff_table_init(&t, view);
	diff_table_count(&t, s, DIFF_NEW);
	r = diff_table_find(&t, key);
	n = r ? r->count[DIFF_NEW] : 0;
	diff_table_free(&t);
	return n;
}

static int read_mem(const void *data, size_t n, struct stackset *s)
{
	char err[256];

	stackset_init(s);
	return profile_read_buf("mem", data, n, NULL, s, err, sizeof(err));
}

/* A side written as one pprof file (diff -f pprof) reads back the same. */
static void merged_round_trip(const struct stackset *s)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	struct stackset back;
	const char keys[][16] = { "Fmain.lua:work", "fwork", "lmain.lua:7", "zparse", "v(none)" };
	bool same = true;

	CHECK("pair: a side writes as pprof", f && diff_pprof_write(f, s) == 0);
	fclose(f);
	CHECK("pair: reads back", read_mem(buf, n, &back) == 0 && back.total == s->total &&
	      back.duration_ns == s->duration_ns && back.ticks > 249.9 && back.ticks < 250.1);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		same &= count_of(&back, keys[i][0], keys[i] + 1) == count_of(s, keys[i][0], keys[i] + 1);
	CHECK("pair: F, f, l, z and v keys count the same", same);
	stackset_free(&back);
	free(buf);
}

static void pprof_round_trip(const struct profile *p, struct strbuf *gz)
{
	struct stackset s;

	CHECK("pprof: encodes", pprof_encode(p, NULL, gz) == 0);
	CHECK("pprof: reads back", read_mem(gz->buf, gz->len, &s) == 0);
	CHECK("pprof: every sample", s.total == FIX_TOTAL && s.files == 1);
	CHECK("pprof: carries lines, VM states, zones, a duration",
	      (s.has & (SS_HAS_LINES | SS_HAS_VMSTATE | SS_HAS_ZONE | SS_HAS_DURATION)) ==
	      (SS_HAS_LINES | SS_HAS_VMSTATE | SS_HAS_ZONE | SS_HAS_DURATION) && !(s.has & SS_HEAP));
	CHECK("pprof: 2.5 s at 100 Hz is 250 ticks", s.duration_ns == 2500000000ull &&
	      s.ticks > 249.9 && s.ticks < 250.1);
	/* work is the leaf of 30 + 50 + 6 + 2 samples, at lines 5 and 7. */
	CHECK("pprof: F key", count_of(&s, 'F', "main.lua:work") == 88);
	CHECK("pprof: f key", count_of(&s, 'f', "work") == 88);
	CHECK("pprof: l keys", count_of(&s, 'l', "main.lua:5") == 38 &&
	      count_of(&s, 'l', "main.lua:7") == 50);
	CHECK("pprof: z key", count_of(&s, 'z', "parse") == 12);
	CHECK("pprof: v key of the host sample", count_of(&s, 'v', "(none)") == 4);
	merged_round_trip(&s);
	stackset_free(&s);
}

typedef int exporter(FILE *out, const struct profile *p, const struct export_opts *o);

/* p exported by fn into *buf (the caller frees it), then read into s:
 * the read's result, or -3 when the export failed. */
static int export_read(exporter *fn, const struct profile *p, char **buf, struct stackset *s)
{
	size_t n = 0;
	FILE *f = open_memstream(buf, &n);
	int rc = f && fn(f, p, NULL) == 0 ? 0 : -3;

	if (f)
		fclose(f);
	return rc ? rc : read_mem(*buf, n, s);
}

static void folded_round_trip(const struct profile *p)
{
	char *buf = NULL;
	struct stackset s;

	CHECK("folded: exports and reads back", export_read(export_folded, p, &buf, &s) == 0);
	CHECK("folded: every sample", s.total == FIX_TOTAL);
	CHECK("folded: no lines, states or duration", !(s.has & (SS_HAS_LINES | SS_HAS_VMSTATE |
							       SS_HAS_DURATION)));
	CHECK("folded: F key", count_of(&s, 'F', "main.lua:work") == 88);
	CHECK("folded: ';' and '%' decode", strtab_find(&s.str, "x&y.lua:a;b<c>&\"q'", 18) != UINT32_MAX &&
	      strtab_find(&s.str, "app;v2 7", 8) != UINT32_MAX);
	CHECK("folded: a trailing ' <digits>' decodes", count_of(&s, 'F', "main.lua:v 42") == 3);
	stackset_free(&s);
	CHECK("folded: a line without a count is refused", read_mem("a;b 3\nc;d\n", 10, &s) < 0);
	stackset_free(&s);
	free(buf);
}

/* OTLP: one Profile per process, the same keys as pprof's. */
static void otlp_round_trip(const struct profile *p)
{
	char *buf = NULL;
	struct stackset s;

	CHECK("otlp: exports and reads back, a profile per process",
	      export_read(export_otlp, p, &buf, &s) == 0 && s.files == 2 && s.total == FIX_TOTAL);
	CHECK("otlp: F, l, z and v keys", count_of(&s, 'F', "main.lua:work") == 88 &&
	      count_of(&s, 'l', "main.lua:7") == 50 && count_of(&s, 'z', "parse") == 12 &&
	      count_of(&s, 'v', "(none)") == 4);
	CHECK("otlp: carries durations", (s.has & SS_HAS_DURATION) && s.duration_ns == 5000000000ull);
	stackset_free(&s);
	free(buf);
}

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void damaged(const struct strbuf *gz)
{
	struct stackset s;
	unsigned char *junk = malloc(gz->len);
	int refused = 0, read = 0;

	for (size_t cut = 0; cut < gz->len; cut++) {
		int rc = read_mem(gz->buf, cut, &s);

		refused += rc < 0;
		read += rc == 0;
		stackset_free(&s);
	}
	CHECK("every truncation of the gzip'd pprof is refused", refused == (int)gz->len && !read);
	for (int run = 0; run < 2000; run++) {
		memcpy(junk, gz->buf, gz->len);
		for (int k = 0; k < 4; k++)
			junk[next() % gz->len] = (unsigned char)next();
		read_mem(junk, gz->len, &s);
		stackset_free(&s);
	}
	CHECK("2000 damaged files read without a crash", 1);
	for (int run = 0; run < 2000; run++) {
		size_t n = next() % 512;

		for (size_t i = 0; i < n; i++)
			junk[i] = (unsigned char)next();
		read_mem(junk, n, &s);
		stackset_free(&s);
	}
	CHECK("2000 random inputs read without a crash", 1);
	free(junk);
}

int main(void)
{
	struct profile *p = fix_profile();
	struct strbuf gz = STRBUF_INIT;

	pprof_round_trip(p, &gz);
	folded_round_trip(p);
	otlp_round_trip(p);
	damaged(&gz);
	sb_free(&gz);
	profile_free(p);
	UNIT_EXIT();
}
