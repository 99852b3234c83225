// SPDX-License-Identifier: MIT
/* The call tree view on synthetic profiles: layout, sorting, depth,
 * focus, threshold, truncated stacks and per-process sections. */
#include <stdlib.h>
#include <string.h>

#include "report/test_view_fixture.h"
#include "report/view_tree.h"

/* Samples of one thread, interpreted. */
static void add_tree(struct profile *p, uint32_t pid, uint64_t count, uint32_t flags,
		     const struct frame_sym **frames, uint32_t n)
{
	add(p, pid, -1, NULL, NULL, count, flags, frames, n);
}

static const char *tree(const struct profile *p, const struct view_tree_opts *o)
{
	static char *buf;
	size_t len;
	FILE *out;

	free(buf);
	buf = NULL;
	out = open_memstream(&buf, &len);
	if (view_tree_write(out, p, o))
		fputs("[write error]", out);
	fclose(out);
	return buf;
}

static void test_fixture(void)
{
	struct profile *p = fixture_with(1, false);
	struct view_tree_opts o;

	view_tree_opts_init(&o);
	o.min = 0;
	CHECK_STR("tree total m0", tree(p, &o),
		  "  total    self   samples  function\n"
		  "  99.0%    0.0%        99  @0x55b303d132c0\n"
		  "  99.0%    3.0%        99    app.lua:0\n"
		  "  86.0%    6.0%        86      app.lua:outer\n"
		  "  65.0%   65.0%        65        app.lua:work\n"
		  "  15.0%   15.0%        15        lib.lua:helper\n"
		  "  10.0%    0.0%        10      lib.lua:helper\n"
		  "  10.0%   10.0%        10        string.rep\n"
		  "   1.0%    1.0%         1  [host]\n");
	o.min = 3;
	o.max_depth = 3;
	CHECK_STR("tree depth 3, threshold drops [host]", tree(p, &o),
		  "  total    self   samples  function\n"
		  "  99.0%    0.0%        99  @0x55b303d132c0\n"
		  "  99.0%    3.0%        99    app.lua:0\n"
		  "  86.0%    6.0%        86      app.lua:outer\n"
		  "  10.0%    0.0%        10      lib.lua:helper\n");
	o.max_depth = 0;
	o.min = 11;
	CHECK_STR("tree threshold m11", tree(p, &o),
		  "  total    self   samples  function\n"
		  "  99.0%    0.0%        99  @0x55b303d132c0\n"
		  "  99.0%    3.0%        99    app.lua:0\n"
		  "  86.0%    6.0%        86      app.lua:outer\n"
		  "  65.0%   65.0%        65        app.lua:work\n"
		  "  15.0%   15.0%        15        lib.lua:helper\n");
	o.min = 3;
	o.focus = "outer";
	CHECK_STR("tree focus by name", tree(p, &o),
		  "  total    self   samples  function\n"
		  "  86.0%    6.0%        86  app.lua:outer\n"
		  "  65.0%   65.0%        65    app.lua:work\n"
		  "  15.0%   15.0%        15    lib.lua:helper\n");
	o.focus = "app.lua:outer";
	CHECK_STR("tree focus by label", tree(p, &o),
		  "  total    self   samples  function\n"
		  "  86.0%    6.0%        86  app.lua:outer\n"
		  "  65.0%   65.0%        65    app.lua:work\n"
		  "  15.0%   15.0%        15    lib.lua:helper\n");
	o.focus = "nothing";
	CHECK_STR("tree focus matches nothing", tree(p, &o),
		  "[No samples pass through nothing]\n");
	o.focus = "helper";
	o.scope = 'f';
	o.full_path = true;
	CHECK_STR("tree f labels", tree(p, &o),
		  "  total    self   samples  function\n"
		  "  25.0%   15.0%        25  helper\n"
		  "  10.0%   10.0%        10    string.rep\n");
	o.focus = NULL;
	o.scope = 'l';
	o.max_depth = 2;
	CHECK_STR("tree l labels keep the path", tree(p, &o),
		  "  total    self   samples  function\n"
		  "  99.0%    0.0%        99  @0x55b303d132c0\n"
		  "  89.0%    3.0%        89    /src/app.lua:20\n"
		  "  10.0%    0.0%        10    /src/app.lua:21\n");
	profile_free(p);
}

static void test_self_sort(void)
{
	struct profile *p = profile_new(100);
	const struct frame_sym *m = lua_frame(p, NULL, "@t.lua", 0, 9);
	const struct frame_sym *a = lua_frame(p, "A", "@t.lua", 1, 2);
	const struct frame_sym *b = lua_frame(p, "B", "@t.lua", 3, 4);
	const struct frame_sym *x = lua_frame(p, "X", "@t.lua", 5, 6);
	const struct frame_sym *s1[] = { a, m }, *s2[] = { x, a, m }, *s3[] = { b, m };
	const struct frame_sym *s4[] = { m };
	struct view_tree_opts o;
	char err[128];

	add_tree(p, 1, 5, 0, s1, 2);
	add_tree(p, 1, 45, 0, s2, 3);
	add_tree(p, 1, 30, 0, s3, 2);
	add_tree(p, 1, 20, 0, s4, 1);
	view_tree_opts_init(&o);
	CHECK("parse --tree", !view_tree_parse_arg(NULL, &o, err, sizeof(err)) &&
	      o.sort == TREE_SORT_TOTAL);
	CHECK_STR("tree by total", tree(p, &o),
		  "  total    self   samples  function\n"
		  " 100.0%   20.0%       100  t.lua:0\n"
		  "  50.0%    5.0%        50    t.lua:A\n"
		  "  45.0%   45.0%        45      t.lua:X\n"
		  "  30.0%   30.0%        30    t.lua:B\n");
	CHECK("parse --tree=self", !view_tree_parse_arg("self", &o, err, sizeof(err)) &&
	      o.sort == TREE_SORT_SELF);
	CHECK_STR("tree by self", tree(p, &o),
		  "  total    self   samples  function\n"
		  " 100.0%   20.0%       100  t.lua:0\n"
		  "  30.0%   30.0%        30    t.lua:B\n"
		  "  50.0%    5.0%        50    t.lua:A\n"
		  "  45.0%   45.0%        45      t.lua:X\n");
	CHECK("parse --tree=total", !view_tree_parse_arg("total", &o, err, sizeof(err)) &&
	      o.sort == TREE_SORT_TOTAL);
	CHECK("parse --tree=bogus fails", view_tree_parse_arg("bogus", &o, err, sizeof(err)));
	CHECK_STR("parse error message", err,
		  "invalid --tree value \"bogus\": use --tree or --tree=self");
	profile_free(p);
}

static void test_recursion_truncated(void)
{
	struct profile *p = profile_new(100);
	const struct frame_sym *m = lua_frame(p, NULL, "@t.lua", 0, 9);
	const struct frame_sym *f = lua_frame(p, "f", "@t.lua", 1, 2);
	const struct frame_sym *s1[] = { f, f, f, m }, *s2[] = { f, f };
	struct view_tree_opts o;

	add_tree(p, 1, 6, 0, s1, 4);
	add_tree(p, 1, 2, PSAMPLE_TRUNCATED, s2, 2);
	view_tree_opts_init(&o);
	CHECK_STR("truncated stacks stay apart", tree(p, &o),
		  "  total    self   samples  function\n"
		  "  75.0%    0.0%         6  t.lua:0\n"
		  "  75.0%    0.0%         6    t.lua:f\n"
		  "  75.0%    0.0%         6      t.lua:f\n"
		  "  75.0%   75.0%         6        t.lua:f\n"
		  "  25.0%    0.0%         2  [unknown: truncated]\n"
		  "  25.0%    0.0%         2    t.lua:f\n"
		  "  25.0%   25.0%         2      t.lua:f\n");
	o.focus = "f";
	CHECK_STR("focus roots at the outermost call", tree(p, &o),
		  "  total    self   samples  function\n"
		  " 100.0%    0.0%         8  t.lua:f\n"
		  " 100.0%   25.0%         8    t.lua:f\n"
		  "  75.0%   75.0%         6      t.lua:f\n");
	profile_free(p);
}

static void test_sections(void)
{
	struct profile *p = profile_new(100);
	const struct frame_sym *w = lua_frame(p, "work", "@/x/t.lua", 1, 2);
	const struct frame_sym *u = lua_frame(p, "other", "@/x/u.lua", 1, 2);
	const struct frame_sym *sw[] = { w }, *su[] = { u };
	struct view_tree_opts o;

	view_tree_opts_init(&o);
	CHECK_STR("tree without samples", tree(p, &o), "[No samples collected]\n");
	profile_set_comm(p, 300, "app");
	add_tree(p, 300, 3, 0, sw, 1);
	add_tree(p, 300, 1, 0, su, 1);
	add_tree(p, 20, 7, 0, su, 1);
	CHECK_STR("tree per process", tree(p, &o),
		  "=== PID 20 (?) ===\n"
		  "  total    self   samples  function\n"
		  " 100.0%  100.0%         7  u.lua:other\n"
		  "\n"
		  "=== PID 300 (app) ===\n"
		  "  total    self   samples  function\n"
		  "  75.0%   75.0%         3  t.lua:work\n"
		  "  25.0%   25.0%         1  u.lua:other\n");
	profile_free(p);
}

static void test_from_jp(void)
{
	struct view_tree_opts o;
	struct jp_mode m;
	char err[128];

	view_tree_opts_init(&o);
	jp_mode_parse("v", &m, err, sizeof(err));
	view_tree_opts_from_jp(&o, &m);
	CHECK("states only keep F labels", o.scope == 'F' && o.min == 3 && !o.full_path);
	jp_mode_parse("plm1", &m, err, sizeof(err));
	view_tree_opts_from_jp(&o, &m);
	CHECK("scope, path and threshold from -jp", o.scope == 'l' && o.min == 1 && o.full_path);
}

int main(void)
{
	test_fixture();
	test_self_sort();
	test_recursion_truncated();
	test_sections();
	test_from_jp();
	UNIT_EXIT();
}
