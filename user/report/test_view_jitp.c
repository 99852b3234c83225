/* The jit.p report on synthetic profiles.  The goldens for the fixture
 * profile were produced by the real jit/p.lua (LuaJIT 2.1, Debian 12) fed
 * the same samples through a stand-in jit.profile module; annotations use
 * jit.p with its "show = true" slip corrected, and name a fast function
 * "[Cannot annotate non-file]" where jit.p would try to open it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/view_jitp.h"
#include "base/unit.h"

static const struct frame_sym *lua_frame(struct profile *p, const char *name,
					 const char *chunk, int firstline, int line)
{
	struct frame_sym f = { .kind = FRAME_LUA, .name = name, .chunk = chunk,
			       .firstline = firstline, .line = line };

	return profile_frame(p, &f);
}

static void add(struct profile *p, uint32_t pid, int32_t vmstate, const char *zone,
		const char *trace_start, uint64_t count, uint32_t flags,
		const struct frame_sym **frames, uint32_t n)
{
	struct sample s = { .pid = pid, .tid = pid, .vmstate = vmstate, .flags = flags,
			    .zone = zone, .trace_start = trace_start, .nframes = n,
			    .frames = frames, .count = count };

	profile_add(p, &s);
}

/* 100 samples: work (2 lines) < outer < main chunk < C, helper from two
 * places, string.rep, GC, JIT compiler and one [host] sample. */
static struct profile *fixture(uint32_t pid)
{
	struct profile *p = profile_new(100);
	struct frame_sym cf = { .kind = FRAME_C, .cfunc = 0x55b303d132c0ull };
	struct frame_sym ff = { .kind = FRAME_FF, .name = "rep", .ffid = 79,
				.ffname = "string.rep" };
	const struct frame_sym *C = profile_frame(p, &cf), *rep = profile_frame(p, &ff);
	const struct frame_sym *main20 = lua_frame(p, NULL, "@/src/app.lua", 0, 20);
	const struct frame_sym *main21 = lua_frame(p, NULL, "@/src/app.lua", 0, 21);
	const struct frame_sym *outer8 = lua_frame(p, "outer", "@/src/app.lua", 5, 8);
	const struct frame_sym *outer9 = lua_frame(p, "outer", "@/src/app.lua", 5, 9);
	const struct frame_sym *work2 = lua_frame(p, "work", "@/src/app.lua", 1, 2);
	const struct frame_sym *work3 = lua_frame(p, "work", "@/src/app.lua", 1, 3);
	const struct frame_sym *helper12 = lua_frame(p, "helper", "@/src/lib.lua", 10, 12);
	const struct frame_sym *helper13 = lua_frame(p, "helper", "@/src/lib.lua", 10, 13);
	const struct frame_sym *s1[] = { work2, outer8, main20, C };
	const struct frame_sym *s2[] = { work3, outer8, main20, C };
	const struct frame_sym *s3[] = { helper12, outer9, main20, C };
	const struct frame_sym *s4[] = { rep, helper13, main21, C };
	const struct frame_sym *s5[] = { outer8, main20, C };
	const struct frame_sym *s6[] = { main20, C };

	add(p, pid, -1, NULL, NULL, 40, 0, s1, 4);
	add(p, pid, 3, NULL, "app.lua:2", 25, 0, s2, 4);
	add(p, pid, -1, "db", NULL, 15, 0, s3, 4);
	add(p, pid, -2, "db", NULL, 10, 0, s4, 4);
	add(p, pid, -3, NULL, NULL, 6, 0, s5, 3);
	add(p, pid, -5, NULL, NULL, 3, 0, s6, 2);
	add(p, pid, -2, NULL, NULL, 1, PSAMPLE_HOST, NULL, 0);
	return p;
}

/* In-memory source files for the annotations. */
static FILE *open_source(const char *path, void *ctx)
{
	static char app[1024], lib[1024];
	const char *text = NULL;

	(void)ctx;
	if (!app[0]) {
		for (int i = 1; i <= 25; i++)
			snprintf(app + strlen(app), sizeof(app) - strlen(app),
				 "-- app line %d\n", i);
		for (int i = 1; i <= 15; i++)
			snprintf(lib + strlen(lib), sizeof(lib) - strlen(lib),
				 "-- lib line %d\n", i);
	}
	if (!strcmp(path, "/src/app.lua"))
		text = app;
	else if (!strcmp(path, "/src/lib.lua"))
		text = lib;
	else if (!strcmp(path, "/src/bc.lua"))
		text = "\033LJ\002\nmore";
	else if (!strcmp(path, "/src/tail.lua"))
		text = "x = 1\ny = 2";	/* no newline at the end */
	if (!text) {
		errno = ENOENT;
		return NULL;
	}
	return fmemopen((void *)text, strlen(text), "r");
}

static const char *report_m(const struct profile *p, const struct jp_mode *m,
			    const struct view_jitp_opts *opts)
{
	static char *buf;
	size_t len;
	FILE *out;

	free(buf);
	buf = NULL;
	out = open_memstream(&buf, &len);
	if (view_jitp_write_opts(out, p, m, opts))
		fputs("[write error]", out);
	fclose(out);
	return buf;
}

static const char *report(const struct profile *p, const char *mode,
			  const struct view_jitp_opts *opts)
{
	struct jp_mode m;
	static char err[128];

	if (jp_mode_parse(mode, &m, err, sizeof(err)))
		return err;
	return report_m(p, &m, opts);
}

static void test_fixture(void)
{
	struct profile *p = fixture(4242);
	struct view_jitp_opts opts = { .open_source = open_source };
	struct jp_mode m;
	char err[128];

	CHECK_STR("mode f", report(p, "f", NULL),
		  "65%  work\n"
		  "15%  helper\n"
		  "10%  rep\n"
		  " 6%  outer\n"
		  " 3%  app.lua:0\n");
	CHECK_STR("mode v", report(p, "v", NULL),
		  "55%  Interpreted\n"
		  "25%  Compiled\n"
		  "10%  C code\n"
		  " 6%  Garbage Collector\n"
		  " 3%  JIT Compiler\n");
	CHECK_STR("mode vf", report(p, "vf", NULL),
		  "55%  Interpreted\n"
		  "  -- 73%  work\n"
		  "  -- 27%  helper\n"
		  "25%  Compiled\n"
		  "  -- 100%  work\n"
		  "10%  C code\n"
		  "  -- 100%  rep\n"
		  " 6%  Garbage Collector\n"
		  "  -- 100%  outer\n"
		  " 3%  JIT Compiler\n"
		  "  -- 100%  app.lua:0\n");
	CHECK_STR("mode fv", report(p, "fv", NULL),
		  "65%  work\n"
		  "  <- 62%  Interpreted\n"
		  "  <- 38%  Compiled\n"
		  "15%  helper\n"
		  "  <- 100%  Interpreted\n"
		  "10%  rep\n"
		  "  <- 100%  C code\n"
		  " 6%  outer\n"
		  "  <- 100%  Garbage Collector\n"
		  " 3%  app.lua:0\n"
		  "  <- 100%  JIT Compiler\n");
	CHECK_STR("mode fl", report(p, "fl", NULL),
		  "65%  work\n"
		  "  -- 62%  app.lua:2\n"
		  "  -- 38%  app.lua:3\n"
		  "15%  helper\n"
		  "  -- 100%  lib.lua:12\n"
		  "10%  rep\n"
		  "  -- 100%  string.rep\n"
		  " 6%  outer\n"
		  "  -- 100%  app.lua:8\n"
		  " 3%  app.lua:0\n"
		  "  -- 100%  app.lua:20\n");
	CHECK_STR("mode zf", report(p, "zf", NULL),
		  "74%  (none)\n"
		  "  -- 88%  work\n"
		  "  --  8%  outer\n"
		  "  --  4%  app.lua:0\n"
		  "25%  db\n"
		  "  -- 60%  helper\n"
		  "  -- 40%  rep\n");
	CHECK_STR("mode 2", report(p, "2", NULL),
		  "65%  work < outer\n"
		  "15%  helper < outer\n"
		  "10%  rep < helper\n"
		  " 6%  outer < app.lua:0\n"
		  " 3%  app.lua:0 < @0x55b303d132c0\n");
	CHECK_STR("mode -2", report(p, "-2", NULL),
		  "65%  outer > work\n"
		  "15%  outer > helper\n"
		  "10%  helper > rep\n"
		  " 6%  app.lua:0 > outer\n"
		  " 3%  @0x55b303d132c0 > app.lua:0\n");
	CHECK_STR("mode s", report(p, "s", NULL),
		  "65%  work\n"
		  "  <- 100%  outer\n"
		  "15%  helper\n"
		  "  <- 100%  outer\n"
		  "10%  rep\n"
		  "  <- 100%  helper\n"
		  " 6%  outer\n"
		  "  <- 100%  app.lua:0\n"
		  " 3%  app.lua:0\n"
		  "  <- 100%  @0x55b303d132c0\n");
	CHECK_STR("mode -s", report(p, "-s", NULL),
		  "80%  outer\n"
		  "  -> 81%  work\n"
		  "  -> 19%  helper\n"
		  "10%  helper\n"
		  "  -> 100%  rep\n"
		  " 6%  app.lua:0\n"
		  "  -> 100%  outer\n"
		  " 3%  @0x55b303d132c0\n"
		  "  -> 100%  app.lua:0\n");
	CHECK_STR("mode 3si4m1", report(p, "3si4m1", NULL),
		  "65%  work\n"
		  "  <- 100%  outer < app.lua:0\n"
		  "15%  helper\n"
		  "  <- 100%  outer < app.lua:0\n"
		  "10%  rep\n"
		  "  <- 100%  helper < app.lua:0\n"
		  " 6%  outer\n"
		  "  <- 100%  app.lua:0 < @0x55b303d132c0\n"
		  " 3%  app.lua:0\n"
		  "  <- 100%  @0x55b303d132c0\n"
		  " 1%  [host]\n");
	CHECK_STR("mode r", report(p, "r", NULL),
		  "   65  work\n"
		  "   15  helper\n"
		  "   10  rep\n"
		  "    6  outer\n"
		  "    3  app.lua:0\n");
	CHECK_STR("mode G", report(p, "G", NULL),
		  "@0x55b303d132c0;app.lua:0;outer;work 65\n"
		  "@0x55b303d132c0;app.lua:0;outer;helper 15\n"
		  "@0x55b303d132c0;app.lua:0;helper;rep 10\n"
		  "@0x55b303d132c0;app.lua:0;outer 6\n"
		  "@0x55b303d132c0;app.lua:0 3\n"
		  "[host] 1\n");
	CHECK_STR("mode m0", report(p, "m0", NULL),
		  "65%  work\n"
		  "15%  helper\n"
		  "10%  rep\n"
		  " 6%  outer\n"
		  " 3%  app.lua:0\n"
		  " 1%  [host]\n");
	CHECK_STR("mode vl", report(p, "vl", NULL),
		  "55%  Interpreted\n"
		  "  -- 73%  app.lua:2\n"
		  "  -- 27%  lib.lua:12\n"
		  "25%  Compiled\n"
		  "  -- 100%  app.lua:3\n"
		  "10%  C code\n"
		  "  -- 100%  string.rep\n"
		  " 6%  Garbage Collector\n"
		  "  -- 100%  app.lua:8\n"
		  " 3%  JIT Compiler\n"
		  "  -- 100%  app.lua:20\n");
	CHECK_STR("mode l", report(p, "l", NULL),
		  "40%  app.lua:2\n"
		  "25%  app.lua:3\n"
		  "15%  lib.lua:12\n"
		  "10%  string.rep\n"
		  " 6%  app.lua:8\n"
		  " 3%  app.lua:20\n");
	CHECK_STR("mode F", report(p, "F", NULL),
		  "65%  app.lua:work\n"
		  "15%  lib.lua:helper\n"
		  "10%  rep\n"
		  " 6%  app.lua:outer\n"
		  " 3%  app.lua:0\n");
	CHECK_STR("mode fvG", report(p, "fvG", NULL),
		  "@0x55b303d132c0;app.lua:0;outer;work 65\n"
		  "Interpreted 40\n"
		  "Compiled 25\n"
		  "@0x55b303d132c0;app.lua:0;outer;helper 15\n"
		  "Interpreted 15\n"
		  "@0x55b303d132c0;app.lua:0;helper;rep 10\n"
		  "C code 10\n"
		  "@0x55b303d132c0;app.lua:0;outer 6\n"
		  "Garbage Collector 6\n"
		  "@0x55b303d132c0;app.lua:0 3\n"
		  "JIT Compiler 3\n"
		  "[host] 1\n"
		  "[host] 1\n");
	CHECK_STR("annotate a", report(p, "a", &opts),
		  "\n"
		  "====== /src/app.lua ======\n"
		  "@@ 1 @@\n"
		  "      | -- app line 1\n"
		  "  40% | -- app line 2\n"
		  "  25% | -- app line 3\n"
		  "      | -- app line 4\n"
		  "      | -- app line 5\n"
		  "      | -- app line 6\n"
		  "      | -- app line 7\n"
		  "   6% | -- app line 8\n"
		  "      | -- app line 9\n"
		  "      | -- app line 10\n"
		  "      | -- app line 11\n"
		  "@@ 17 @@\n"
		  "      | -- app line 17\n"
		  "      | -- app line 18\n"
		  "      | -- app line 19\n"
		  "   3% | -- app line 20\n"
		  "      | -- app line 21\n"
		  "      | -- app line 22\n"
		  "      | -- app line 23\n"
		  "\n"
		  "====== /src/lib.lua ======\n"
		  "@@ 9 @@\n"
		  "      | -- lib line 9\n"
		  "      | -- lib line 10\n"
		  "      | -- lib line 11\n"
		  "  15% | -- lib line 12\n"
		  "      | -- lib line 13\n"
		  "      | -- lib line 14\n"
		  "      | -- lib line 15\n"
		  "\n"
		  "====== string.rep ======\n"
		  "[Cannot annotate non-file]\n");
	CHECK_STR("annotate A", report(p, "A", &opts),
		  "\n"
		  "====== /src/app.lua ======\n"
		  "      | -- app line 1\n"
		  "  40% | -- app line 2\n"
		  "  25% | -- app line 3\n"
		  "      | -- app line 4\n"
		  "      | -- app line 5\n"
		  "      | -- app line 6\n"
		  "      | -- app line 7\n"
		  "   6% | -- app line 8\n"
		  "      | -- app line 9\n"
		  "      | -- app line 10\n"
		  "      | -- app line 11\n"
		  "      | -- app line 12\n"
		  "      | -- app line 13\n"
		  "      | -- app line 14\n"
		  "      | -- app line 15\n"
		  "      | -- app line 16\n"
		  "      | -- app line 17\n"
		  "      | -- app line 18\n"
		  "      | -- app line 19\n"
		  "   3% | -- app line 20\n"
		  "      | -- app line 21\n"
		  "      | -- app line 22\n"
		  "      | -- app line 23\n"
		  "      | -- app line 24\n"
		  "      | -- app line 25\n"
		  "\n"
		  "====== /src/lib.lua ======\n"
		  "      | -- lib line 1\n"
		  "      | -- lib line 2\n"
		  "      | -- lib line 3\n"
		  "      | -- lib line 4\n"
		  "      | -- lib line 5\n"
		  "      | -- lib line 6\n"
		  "      | -- lib line 7\n"
		  "      | -- lib line 8\n"
		  "      | -- lib line 9\n"
		  "      | -- lib line 10\n"
		  "      | -- lib line 11\n"
		  "  15% | -- lib line 12\n"
		  "      | -- lib line 13\n"
		  "      | -- lib line 14\n"
		  "      | -- lib line 15\n"
		  "\n"
		  "====== string.rep ======\n"
		  "[Cannot annotate non-file]\n");
	CHECK_STR("annotate ra", report(p, "ra", &opts),
		  "\n"
		  "====== /src/app.lua ======\n"
		  "@@ 1 @@\n"
		  "      | -- app line 1\n"
		  "   40 | -- app line 2\n"
		  "   25 | -- app line 3\n"
		  "      | -- app line 4\n"
		  "      | -- app line 5\n"
		  "      | -- app line 6\n"
		  "      | -- app line 7\n"
		  "    6 | -- app line 8\n"
		  "      | -- app line 9\n"
		  "      | -- app line 10\n"
		  "      | -- app line 11\n"
		  "@@ 17 @@\n"
		  "      | -- app line 17\n"
		  "      | -- app line 18\n"
		  "      | -- app line 19\n"
		  "    3 | -- app line 20\n"
		  "      | -- app line 21\n"
		  "      | -- app line 22\n"
		  "      | -- app line 23\n"
		  "\n"
		  "====== /src/lib.lua ======\n"
		  "@@ 9 @@\n"
		  "      | -- lib line 9\n"
		  "      | -- lib line 10\n"
		  "      | -- lib line 11\n"
		  "   15 | -- lib line 12\n"
		  "      | -- lib line 13\n"
		  "      | -- lib line 14\n"
		  "      | -- lib line 15\n"
		  "\n"
		  "====== string.rep ======\n"
		  "[Cannot annotate non-file]\n");
	CHECK_STR("annotate rA", report(p, "rA", &opts),
		  "\n"
		  "====== /src/app.lua ======\n"
		  "      | -- app line 1\n"
		  "   40 | -- app line 2\n"
		  "   25 | -- app line 3\n"
		  "      | -- app line 4\n"
		  "      | -- app line 5\n"
		  "      | -- app line 6\n"
		  "      | -- app line 7\n"
		  "    6 | -- app line 8\n"
		  "      | -- app line 9\n"
		  "      | -- app line 10\n"
		  "      | -- app line 11\n"
		  "      | -- app line 12\n"
		  "      | -- app line 13\n"
		  "      | -- app line 14\n"
		  "      | -- app line 15\n"
		  "      | -- app line 16\n"
		  "      | -- app line 17\n"
		  "      | -- app line 18\n"
		  "      | -- app line 19\n"
		  "    3 | -- app line 20\n"
		  "      | -- app line 21\n"
		  "      | -- app line 22\n"
		  "      | -- app line 23\n"
		  "      | -- app line 24\n"
		  "      | -- app line 25\n"
		  "\n"
		  "====== /src/lib.lua ======\n"
		  "      | -- lib line 1\n"
		  "      | -- lib line 2\n"
		  "      | -- lib line 3\n"
		  "      | -- lib line 4\n"
		  "      | -- lib line 5\n"
		  "      | -- lib line 6\n"
		  "      | -- lib line 7\n"
		  "      | -- lib line 8\n"
		  "      | -- lib line 9\n"
		  "      | -- lib line 10\n"
		  "      | -- lib line 11\n"
		  "   15 | -- lib line 12\n"
		  "      | -- lib line 13\n"
		  "      | -- lib line 14\n"
		  "      | -- lib line 15\n"
		  "\n"
		  "====== string.rep ======\n"
		  "[Cannot annotate non-file]\n");

	CHECK_STR("threshold cut", report(p, "m10", NULL),
		  "65%  work\n"
		  "15%  helper\n"
		  "10%  rep\n");
	CHECK_STR("threshold cut nested", report(p, "vfm30", NULL),
		  "55%  Interpreted\n"
		  "  -- 73%  work\n");
	CHECK_STR("host is its own state", report(p, "vm0", NULL),
		  "55%  Interpreted\n"
		  "25%  Compiled\n"
		  "10%  C code\n"
		  " 6%  Garbage Collector\n"
		  " 3%  JIT Compiler\n"
		  " 1%  [host]\n");

	jp_mode_parse("vm0", &m, err, sizeof(err));
	m.vmstate_detail = true;
	CHECK_STR("vmstate detail", report_m(p, &m, NULL),
		  "55%  Interpreted\n"
		  "25%  Compiled trace 3 (app.lua:2)\n"
		  "10%  C code\n"
		  " 6%  Garbage Collector\n"
		  " 3%  JIT Compiler (record)\n"
		  " 1%  [host]\n");
	jp_mode_parse("vf", &m, err, sizeof(err));
	m.vmstate_detail = true;
	CHECK_STR("vmstate detail with stacks", report_m(p, &m, NULL),
		  "55%  Interpreted\n"
		  "  -- 73%  work\n"
		  "  -- 27%  helper\n"
		  "25%  Compiled trace 3 (app.lua:2)\n"
		  "  -- 100%  work\n"
		  "10%  C code\n"
		  "  -- 100%  rep\n"
		  " 6%  Garbage Collector\n"
		  "  -- 100%  outer\n"
		  " 3%  JIT Compiler (record)\n"
		  "  -- 100%  app.lua:0\n");
	profile_free(p);
}

static void test_vmstate_detail_names(void)
{
	struct profile *p = profile_new(100);
	const struct frame_sym *f = lua_frame(p, "f", "@t.lua", 1, 2);
	const struct frame_sym *st[] = { f };
	struct jp_mode m;
	char err[128];

	add(p, 1, 7, NULL, NULL, 50, 0, st, 1);
	add(p, 1, -4, NULL, NULL, 25, 0, st, 1);
	add(p, 1, -6, NULL, NULL, 13, 0, st, 1);
	add(p, 1, -7, NULL, NULL, 12, 0, st, 1);
	jp_mode_parse("v", &m, err, sizeof(err));
	CHECK_STR("J states merge without detail", report_m(p, &m, NULL),
		  "50%  Compiled\n"
		  "50%  JIT Compiler\n");
	m.vmstate_detail = true;
	CHECK_STR("J states split with detail", report_m(p, &m, NULL),
		  "50%  Compiled trace 7\n"
		  "25%  JIT Compiler (trace exit)\n"
		  "13%  JIT Compiler (optimize)\n"
		  "12%  JIT Compiler (assemble)\n");
	profile_free(p);
}

static void test_host_only(void)
{
	struct profile *p = profile_new(100);

	add(p, 9, -2, NULL, NULL, 5, PSAMPLE_HOST, NULL, 0);
	CHECK_STR("host f", report(p, "f", NULL), "100%  [host]\n");
	CHECK_STR("host v", report(p, "v", NULL), "100%  [host]\n");
	CHECK_STR("host vf", report(p, "vf", NULL), "100%  [host]\n  -- 100%  [host]\n");
	CHECK_STR("host fz", report(p, "fz", NULL), "100%  [host]\n  <- 100%  [host]\n");
	CHECK_STR("host fl", report(p, "fl", NULL), "100%  [host]\n  -- 100%  [host]\n");
	CHECK_STR("host -s", report(p, "-s", NULL), "100%  [host]\n");
	CHECK_STR("host G", report(p, "G", NULL), "[host] 5\n");
	CHECK_STR("host a", report(p, "a", NULL),
		  "\n====== [host] ======\n[Cannot annotate non-file]\n");
	profile_free(p);
}

static void test_empty(void)
{
	struct profile *p = profile_new(100);

	CHECK_STR("no samples", report(p, "f", NULL), "[No samples collected]\n");
	CHECK_STR("no samples raw", report(p, "r", NULL), "[No samples collected]\n");
	CHECK_STR("no samples annotate", report(p, "a", NULL), "[No samples collected]\n");
	CHECK_STR("no samples G prints nothing", report(p, "G", NULL), "");
	profile_free(p);
}

static void test_ties_and_unknown(void)
{
	struct profile *p = profile_new(100);
	const struct frame_sym *a = lua_frame(p, "a", "@t.lua", 1, 2);
	const struct frame_sym *b = lua_frame(p, "b", "@t.lua", 3, 4);
	const struct frame_sym *c = lua_frame(p, "c", "@t.lua", 5, 6);
	const struct frame_sym *sa[] = { a }, *sb[] = { b }, *sc[] = { c };

	add(p, 1, -1, NULL, NULL, 5, 0, sb, 1);
	add(p, 1, -1, NULL, NULL, 10, 0, sc, 1);
	add(p, 1, -1, NULL, NULL, 5, 0, sa, 1);
	add(p, 1, -1, NULL, NULL, 5, 0, NULL, 0);
	CHECK_STR("ties sort by key", report(p, "f", NULL),
		  "40%  c\n"
		  "20%  [unknown: empty stack]\n"
		  "20%  a\n"
		  "20%  b\n");
	profile_free(p);
}

static void test_processes(void)
{
	struct profile *p = profile_new(100);
	const struct frame_sym *w = lua_frame(p, "work", "@/x/t.lua", 1, 2);
	const struct frame_sym *o = lua_frame(p, "other", "@/x/u.lua", 1, 2);
	const struct frame_sym *sw[] = { w }, *so[] = { o };

	profile_set_comm(p, 300, "app");
	add(p, 300, -1, NULL, NULL, 3, 0, sw, 1);
	add(p, 300, -1, NULL, NULL, 1, 0, so, 1);
	add(p, 20, -2, NULL, NULL, 7, 0, so, 1);
	CHECK_STR("one section per process", report(p, "f", NULL),
		  "=== PID 20 (?) ===\n"
		  "100%  other\n"
		  "\n"
		  "=== PID 300 (app) ===\n"
		  "75%  work\n"
		  "25%  other\n");
	CHECK_STR("sections in G", report(p, "G", NULL),
		  "=== PID 20 (?) ===\n"
		  "other 7\n"
		  "\n"
		  "=== PID 300 (app) ===\n"
		  "work 3\n"
		  "other 1\n");
	profile_free(p);

	p = profile_new(100);
	w = lua_frame(p, "work", "@/x/t.lua", 1, 2);
	sw[0] = w;
	profile_set_comm(p, 300, "app");
	add(p, 300, -1, NULL, NULL, 3, 0, sw, 1);
	CHECK_STR("one process has no header", report(p, "f", NULL), "100%  work\n");
	profile_free(p);
}

static void test_annotate_files(void)
{
	struct profile *p = profile_new(100);
	struct view_jitp_opts opts = { .open_source = open_source };
	const struct frame_sym *cl = lua_frame(p, NULL, "=(command line)", 0, 1);
	const struct frame_sym *missing = lua_frame(p, NULL, "@/src/a.lua", 0, 1);
	const struct frame_sym *app = lua_frame(p, NULL, "@/src/app.lua", 0, 25);
	const struct frame_sym *bc = lua_frame(p, NULL, "@/src/bc.lua", 0, 1);
	const struct frame_sym *tail = lua_frame(p, NULL, "@/src/tail.lua", 0, 2);
	const struct frame_sym *s1[] = { cl }, *s2[] = { missing }, *s3[] = { app };
	const struct frame_sym *s4[] = { bc }, *s5[] = { tail };

	add(p, 1, -1, NULL, NULL, 10, 0, s1, 1);
	add(p, 1, -1, NULL, NULL, 10, 0, s2, 1);
	add(p, 1, -1, NULL, NULL, 10, 0, s3, 1);
	add(p, 1, -1, NULL, NULL, 10, 0, s4, 1);
	add(p, 1, -1, NULL, NULL, 10, 0, s5, 1);
	/* jit.p stops at the first file it cannot show; the rest follow here. */
	CHECK_STR("annotate odd files", report(p, "a", &opts),
		  "\n====== (command line) ======\n[Cannot annotate non-file]\n"
		  "====== ERROR: /src/a.lua: /src/a.lua: No such file or directory\n"
		  "\n====== /src/app.lua ======\n"
		  "@@ 22 @@\n"
		  "      | -- app line 22\n"
		  "      | -- app line 23\n"
		  "      | -- app line 24\n"
		  "  20% | -- app line 25\n"
		  "\n====== /src/bc.lua ======\n"
		  "@@ 1 @@\n"
		  "[Cannot annotate bytecode file]\n"
		  "\n====== /src/tail.lua ======\n"
		  "@@ 1 @@\n"
		  "      | x = 1\n"
		  "  20% | y = 2\n");
	profile_free(p);

	p = profile_new(100);
	tail = lua_frame(p, NULL, "@/src/tail.lua", 0, 2);
	s5[0] = tail;
	s1[0] = lua_frame(p, NULL, "@/src/tail.lua", 0, 1);
	add(p, 1, -1, NULL, NULL, 123456, 0, s5, 1);
	add(p, 1, -1, NULL, NULL, 1, 0, s1, 1);
	CHECK_STR("raw annotate widens", report(p, "rAm0", &opts),
		  "\n====== /src/tail.lua ======\n"
		  "     1 | x = 1\n"
		  "123456 | y = 2\n");
	CHECK_STR("threshold hides a line", report(p, "A", &opts),
		  "\n====== /src/tail.lua ======\n"
		  "      | x = 1\n"
		  " 100% | y = 2\n");
	profile_free(p);
}

int main(void)
{
	test_fixture();
	test_vmstate_detail_names();
	test_host_only();
	test_empty();
	test_ties_and_unknown();
	test_processes();
	test_annotate_files();
	UNIT_EXIT();
}
