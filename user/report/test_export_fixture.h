/* SPDX-License-Identifier: MIT */
/* The synthetic profile the exporter tests share.  tests/node/truth.js
 * describes the same profile independently; keep the two in step.
 *
 * Two processes; frames with ';', '<', '&', quotes, UTF-8, an invalid
 * byte and a trailing " <digits>"; a host sample, a truncated stack, GC,
 * JIT and compiled samples, zones, recursion.  120 samples at 100 Hz.
 */
#ifndef LBP_TEST_EXPORT_FIXTURE_H
#define LBP_TEST_EXPORT_FIXTURE_H

#include "model/profile.h"

#define FIX_CFUNC 0x55b303d132c0ull

static const struct frame_sym fix_main = { .kind = SYM_LUA, .chunk = "@/srv/app/main.lua",
					   .firstline = 0, .line = 40 };
static const struct frame_sym fix_outer = { .kind = SYM_LUA, .name = "outer",
					    .chunk = "@/srv/app/main.lua", .firstline = 10,
					    .line = 14 };
static const struct frame_sym fix_work = { .kind = SYM_LUA, .name = "work",
					   .chunk = "@/srv/app/main.lua", .firstline = 2,
					   .line = 5 };
/* Same function, another current line: one key for 'F', two for 'l'. */
static const struct frame_sym fix_work7 = { .kind = SYM_LUA, .name = "work",
					    .chunk = "@/srv/app/main.lua", .firstline = 2,
					    .line = 7 };
static const struct frame_sym fix_odd = { .kind = SYM_LUA, .name = "a;b<c>&\"q'",
					  .chunk = "@/srv/app/odd <dir>/x&y.lua",
					  .firstline = 20, .line = 21 };
static const struct frame_sym fix_utf8 = { .kind = SYM_LUA, .name = "gr\xc3\xb6\xc3\x9f" "e",
					   .chunk = "=stdin", .firstline = 3, .line = 3 };
static const struct frame_sym fix_bad = { .kind = SYM_LUA, .name = "bad\xff" "name",
					  .chunk = "@/srv/app/main.lua", .firstline = 30,
					  .line = 31 };
static const struct frame_sym fix_digits = { .kind = SYM_LUA, .name = "v 42",
					     .chunk = "@/srv/app/main.lua", .firstline = 50,
					     .line = 51 };
static const struct frame_sym fix_string = { .kind = SYM_LUA,
					     .chunk = "return function() end",
					     .firstline = 1, .line = 1 };
static const struct frame_sym fix_cfunc = { .kind = SYM_C, .cfunc = FIX_CFUNC,
					    .firstline = 0, .line = -1 };
static const struct frame_sym fix_rep = { .kind = SYM_FF, .ffid = 80,
					  .ffname = "string.rep", .line = -1 };
static const struct frame_sym fix_foreach = { .kind = SYM_LUA, .chunk = "foreach",
					      .firstline = -1, .line = -1 };

struct fix_sample {
	uint32_t pid, tid;
	int32_t vmstate;
	uint32_t flags;
	const char *zone, *trace_start;
	uint64_t count;
	const struct frame_sym *root_first[8];	/* NULL-terminated */
};

static const struct fix_sample fix_samples[] = {
	{ 4242, 4242, -1, 0, NULL, NULL, 30,
	  { &fix_cfunc, &fix_main, &fix_outer, &fix_work } },
	{ 4242, 4242, 7, 0, NULL, "main.lua:2", 50,
	  { &fix_cfunc, &fix_main, &fix_outer, &fix_work7 } },
	{ 4242, 4243, -2, 0, NULL, NULL, 10,
	  { &fix_cfunc, &fix_main, &fix_outer, &fix_rep } },
	{ 4242, 4242, -3, 0, "parse", NULL, 5,
	  { &fix_cfunc, &fix_main, &fix_odd } },
	{ 4242, 4242, -1, 0, "parse", NULL, 7,
	  { &fix_cfunc, &fix_main, &fix_odd, &fix_utf8 } },
	{ 4242, 4242, -1, 0, NULL, NULL, 3,
	  { &fix_cfunc, &fix_main, &fix_bad, &fix_digits } },
	{ 4242, 4242, -4, 0, NULL, NULL, 2,
	  { &fix_cfunc, &fix_main, &fix_string } },
	{ 4242, 4244, -2, PSAMPLE_HOST, NULL, NULL, 4, { NULL } },
	{ 4343, 4344, -1, 0, NULL, NULL, 6,
	  { &fix_cfunc, &fix_main, &fix_outer, &fix_work } },
	{ 4343, 4344, -1, PSAMPLE_TRUNCATED, NULL, NULL, 1,
	  { &fix_work, &fix_foreach } },
	{ 4343, 4344, -1, 0, NULL, NULL, 2,
	  { &fix_cfunc, &fix_main, &fix_outer, &fix_outer, &fix_work } },
};

#define FIX_TOTAL 120

static void fix_add(struct profile *p, const struct fix_sample *fs)
{
	const struct frame_sym *top_first[8];
	struct sample s = { .pid = fs->pid, .tid = fs->tid, .vmstate = fs->vmstate,
			    .flags = fs->flags, .zone = fs->zone,
			    .trace_start = fs->trace_start, .count = fs->count,
			    .frames = top_first };
	uint32_t n = 0;

	while (n < 8 && fs->root_first[n])
		n++;
	for (uint32_t i = 0; i < n; i++)
		top_first[i] = profile_frame(p, fs->root_first[n - 1 - i]);
	s.nframes = n;
	profile_add(p, &s);
}

static struct profile *fix_profile(void)
{
	struct profile *p = profile_new(100);

	p->start_ns = 1700000000123456789ull;
	p->duration_ns = 2500000000ull;
	profile_set_comm(p, 4242, "luajit");
	profile_set_comm(p, 4343, "app;v2 7");
	for (size_t i = 0; i < sizeof(fix_samples) / sizeof(fix_samples[0]); i++)
		fix_add(p, &fix_samples[i]);
	return p;
}

#endif
