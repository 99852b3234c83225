// SPDX-License-Identifier: MIT
/* jit.p's annotations (a, A, raw) on synthetic profiles
 * (test_view_fixture.h).  They use jit.p with its "show = true" slip
 * corrected, and name a fast function "[Cannot annotate non-file]" where
 * jit.p would try to open it. */
#include "report/test_view_fixture.h"

/* a and A on the fixture. */
static void test_annotate_fixture(void)
{
	struct profile *p = fixture(4242);
	struct view_jitp_opts opts = { .open_source = open_source };

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
	profile_free(p);
}

/* Raw counts instead of percentages. */
static void test_annotate_raw(void)
{
	struct profile *p = fixture(4242);
	struct view_jitp_opts opts = { .open_source = open_source };

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
	test_annotate_fixture();
	test_annotate_raw();
	test_annotate_files();
	UNIT_EXIT();
}
