// SPDX-License-Identifier: MIT
/* The built-in fast-function tables against the jit/vmdef.lua of every
 * LuaJIT build in .deps/ (upstream and OpenResty, GC64 and not): the same
 * name for every id, so a target's names do not depend on whether its
 * vmdef.lua is installed. */
#include <glob.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/unit.h"
#include "symbolize/ffnames.h"
#include "luajit/layout.h"
#include "luajit/vmdef.h"

/* The first layout of the family. */
static const struct lj_layout *family(bool openresty)
{
	for (int i = 0; i < layout_count(); i++)
		if (layout_at(i)->openresty == openresty)
			return layout_at(i);
	return NULL;
}

static const char *table_name(enum fft_table t)
{
	static const char *const names[FFT_N] = {
		"upstream", "upstream without JIT", "OpenResty", "OpenResty without JIT",
	};

	return names[t];
}

static bool has_name(const struct vmdef *vd, const char *name)
{
	for (int i = 0; i < vd->nff; i++)
		if (!strcmp(vd->ffnames[i], name))
			return true;
	return false;
}

static void check_file(const char *path, int *seen)
{
	struct vmdef vd;
	enum fft_table t;
	char name[600];
	int bad = -1;
	bool openresty;

	if (vmdef_load(path, &vd)) {
		snprintf(name, sizeof(name), "%s: readable", path);
		CHECK(name, false);
		return;
	}
	openresty = has_name(&vd, "thread.exdata");
	t = ffnames_default(family(openresty));
	if (!has_name(&vd, "jit.util.traceinfo"))
		t = ffnames_nojit(t);
	seen[openresty]++;
	for (int id = 2; id < vd.nff && bad < 0; id++) {
		const char *got = ffnames_table(t, id);

		if (!got || strcmp(got, vd.ffnames[id]))
			bad = id;
	}
	snprintf(name, sizeof(name), "%s (%s): every id has the built-in table's name", path,
		 table_name(t));
	if (bad >= 0)
		printf("  id %d: vmdef %s, built-in %s\n", bad, vd.ffnames[bad],
		       ffnames_table(t, bad) ? ffnames_table(t, bad) : "(none)");
	CHECK(name, bad < 0);
	snprintf(name, sizeof(name), "%s: the built-in table has no extra ids", path);
	CHECK(name, ffnames_table_count(t) == vd.nff);
	vmdef_free(&vd);
}

int main(void)
{
	enum fft_table up = ffnames_default(family(false)), orr = ffnames_default(family(true));
	int seen[2] = { 0, 0 };
	glob_t g;

	CHECK("the families' default tables", up == FFT_UPSTREAM && orr == FFT_OPENRESTY &&
	      ffnames_nojit(up) == FFT_UPSTREAM_NOJIT && ffnames_nojit(orr) == FFT_OPENRESTY_NOJIT);
	CHECK("ids 0 and 1 are not fast functions",
	      !ffnames_table(up, 0) && !ffnames_table(up, 1) && !ffnames_table(orr, 1));
	CHECK_STR("upstream: id 2 is assert", ffnames_table(up, 2), "assert");
	CHECK("OpenResty adds functions of its own",
	      ffnames_table_count(orr) > ffnames_table_count(up));
	CHECK("without the JIT, fewer functions",
	      ffnames_table_count(FFT_UPSTREAM_NOJIT) < ffnames_table_count(up));
	CHECK("no name past the end", !ffnames_table(up, ffnames_table_count(up)) &&
	      !ffnames_table(up, 100000) && !ffnames_table(up, -1) && !ffnames_table(FFT_N, 2));
	if (!glob(".deps/*/usr/share/luajit*/jit/vmdef.lua", 0, NULL, &g)) {
		for (size_t i = 0; i < g.gl_pathc; i++)
			check_file(g.gl_pathv[i], seen);
		globfree(&g);
		CHECK("both families' vmdef.lua were checked", seen[0] && seen[1]);
	} else {
		printf("note: no .deps/*/jit/vmdef.lua here (run from the top with .deps set up)\n");
	}
	UNIT_EXIT();
}
