/* SPDX-License-Identifier: MIT */
/* The fixture profile of the report's unit tests and the helpers that
 * render it; shared by test_view_jitp.c, test_view_annotate.c and
 * test_view_tree.c.
 * The goldens for the fixture were produced by the real jit/p.lua (LuaJIT
 * 2.1, Debian 12) fed the same samples through a stand-in jit.profile
 * module. */
#ifndef LBP_TEST_VIEW_FIXTURE_H
#define LBP_TEST_VIEW_FIXTURE_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/view_jitp.h"
#include "base/unit.h"

static inline const struct frame_sym *lua_frame(struct profile *p, const char *name,
					 const char *chunk, int firstline, int line)
{
	struct frame_sym f = { .kind = SYM_LUA, .name = name, .chunk = chunk,
			       .firstline = firstline, .line = line };

	return profile_frame(p, &f);
}

static inline void add(struct profile *p, uint32_t pid, int32_t vmstate, const char *zone,
		const char *trace_start, uint64_t count, uint32_t flags,
		const struct frame_sym **frames, uint32_t n)
{
	struct sample s = { .pid = pid, .tid = pid, .vmstate = vmstate, .flags = flags,
			    .zone = zone, .trace_start = trace_start, .nframes = n,
			    .frames = frames, .count = count };

	profile_add(p, &s);
}

/* 100 samples: work (2 lines) < outer < main chunk < C, helper from two
 * places, string.rep and one [host] sample; with states, the samples also
 * carry VM states (GC, JIT compiler, a trace), zones and a trace start,
 * else all are interpreted (the call tree's view of it). */
static inline struct profile *fixture_with(uint32_t pid, bool states)
{
	struct profile *p = profile_new(100);
	struct frame_sym cf = { .kind = SYM_C, .cfunc = 0x55b303d132c0ull };
	struct frame_sym ff = { .kind = SYM_FF, .name = "rep", .ffid = 79,
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
#define ST(v) (states ? (v) : -1)
#define ZN(z) (states ? (z) : NULL)

	add(p, pid, -1, NULL, NULL, 40, 0, s1, 4);
	add(p, pid, ST(3), NULL, ZN("app.lua:2"), 25, 0, s2, 4);
	add(p, pid, -1, ZN("db"), NULL, 15, 0, s3, 4);
	add(p, pid, ST(-2), ZN("db"), NULL, 10, 0, s4, 4);
	add(p, pid, ST(-3), NULL, NULL, 6, 0, s5, 3);
	add(p, pid, ST(-5), NULL, NULL, 3, 0, s6, 2);
	add(p, pid, ST(-2), NULL, NULL, 1, PSAMPLE_HOST, NULL, 0);
#undef ST
#undef ZN
	return p;
}

static inline struct profile *fixture(uint32_t pid)
{
	return fixture_with(pid, true);
}

/* In-memory source files for the annotations. */
static inline FILE *open_source(const char *path, void *ctx)
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

static inline const char *report_m(const struct profile *p, const struct jp_mode *m,
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

static inline const char *report(const struct profile *p, const char *mode,
			  const struct view_jitp_opts *opts)
{
	struct jp_mode m;
	static char err[128];

	if (jp_mode_parse(mode, &m, err, sizeof(err)))
		return err;
	return report_m(p, &m, opts);
}

#endif
