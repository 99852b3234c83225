// SPDX-License-Identifier: MIT
/* The jit.p report on synthetic profiles (test_view_fixture.h): every mode,
 * the threshold, VM-state detail, [host], ties, processes. */
#include "report/test_view_fixture.h"

/* Every mode letter on the fixture, against jit.p's own output. */
static void test_modes(void)
{
	struct profile *p = fixture(4242);

	CHECK_STR("mode f", report(p, "f", NULL),
		  "65%  work\n"
		  "15%  helper\n"
		  "10%  string.rep\n"
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
		  "  -- 100%  string.rep\n"
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
		  "10%  string.rep\n"
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
		  "10%  string.rep\n"
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
		  "  -- 40%  string.rep\n");
	profile_free(p);
}

/* Stack depth, split, raw and graph modes on the fixture. */
static void test_modes_stack(void)
{
	struct profile *p = fixture(4242);

	CHECK_STR("mode 2", report(p, "2", NULL),
		  "65%  work < outer\n"
		  "15%  helper < outer\n"
		  "10%  string.rep < helper\n"
		  " 6%  outer < app.lua:0\n"
		  " 3%  app.lua:0 < @0x55b303d132c0\n");
	CHECK_STR("mode -2", report(p, "-2", NULL),
		  "65%  outer > work\n"
		  "15%  outer > helper\n"
		  "10%  helper > string.rep\n"
		  " 6%  app.lua:0 > outer\n"
		  " 3%  @0x55b303d132c0 > app.lua:0\n");
	CHECK_STR("mode s", report(p, "s", NULL),
		  "65%  work\n"
		  "  <- 100%  outer\n"
		  "15%  helper\n"
		  "  <- 100%  outer\n"
		  "10%  string.rep\n"
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
		  "  -> 100%  string.rep\n"
		  " 6%  app.lua:0\n"
		  "  -> 100%  outer\n"
		  " 3%  @0x55b303d132c0\n"
		  "  -> 100%  app.lua:0\n");
	CHECK_STR("mode 3si4m1", report(p, "3si4m1", NULL),
		  "65%  work\n"
		  "  <- 100%  outer < app.lua:0\n"
		  "15%  helper\n"
		  "  <- 100%  outer < app.lua:0\n"
		  "10%  string.rep\n"
		  "  <- 100%  helper < app.lua:0\n"
		  " 6%  outer\n"
		  "  <- 100%  app.lua:0 < @0x55b303d132c0\n"
		  " 3%  app.lua:0\n"
		  "  <- 100%  @0x55b303d132c0\n"
		  " 1%  [host]\n");
	CHECK_STR("mode r", report(p, "r", NULL),
		  "   65  work\n"
		  "   15  helper\n"
		  "   10  string.rep\n"
		  "    6  outer\n"
		  "    3  app.lua:0\n");
	CHECK_STR("mode G", report(p, "G", NULL),
		  "@0x55b303d132c0;app.lua:0;outer;work 65\n"
		  "@0x55b303d132c0;app.lua:0;outer;helper 15\n"
		  "@0x55b303d132c0;app.lua:0;helper;string.rep 10\n"
		  "@0x55b303d132c0;app.lua:0;outer 6\n"
		  "@0x55b303d132c0;app.lua:0 3\n"
		  "[host] 1\n");
	CHECK_STR("mode m0", report(p, "m0", NULL),
		  "65%  work\n"
		  "15%  helper\n"
		  "10%  string.rep\n"
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
		  "10%  string.rep\n"
		  " 6%  app.lua:outer\n"
		  " 3%  app.lua:0\n");
	CHECK_STR("mode fvG", report(p, "fvG", NULL),
		  "@0x55b303d132c0;app.lua:0;outer;work 65\n"
		  "Interpreted 40\n"
		  "Compiled 25\n"
		  "@0x55b303d132c0;app.lua:0;outer;helper 15\n"
		  "Interpreted 15\n"
		  "@0x55b303d132c0;app.lua:0;helper;string.rep 10\n"
		  "C code 10\n"
		  "@0x55b303d132c0;app.lua:0;outer 6\n"
		  "Garbage Collector 6\n"
		  "@0x55b303d132c0;app.lua:0 3\n"
		  "JIT Compiler 3\n"
		  "[host] 1\n"
		  "[host] 1\n");
	profile_free(p);
}

/* The threshold, [host] as its own state, and --vmstate-detail. */
static void test_thresholds(void)
{
	struct profile *p = fixture(4242);
	struct jp_mode m;
	char err[128];

	CHECK_STR("threshold cut", report(p, "m10", NULL),
		  "65%  work\n"
		  "15%  helper\n"
		  "10%  string.rep\n");
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
		  "  -- 100%  string.rep\n"
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

int main(void)
{
	test_modes();
	test_modes_stack();
	test_thresholds();
	test_vmstate_detail_names();
	test_host_only();
	test_empty();
	test_ties_and_unknown();
	test_processes();
	UNIT_EXIT();
}
