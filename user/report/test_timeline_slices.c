// SPDX-License-Identifier: MIT
/* Unit tests for slicing a thread's timeline (report/timeline_slices.c),
 * the bounded timeline the profile keeps (model/timeline.c) and the two
 * timeline exporters (report/export_timeline.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/unit.h"
#include "model/profile.h"
#include "model/timeline.h"
#include "report/export.h"
#include "report/timeline_slices.h"

static void on_open(void *ctx, uint32_t frame, uint64_t t)
{
	sb_printf(ctx, "O%u@%llu ", frame, (unsigned long long)t);
}

static void on_close(void *ctx, uint32_t frame, uint64_t t)
{
	sb_printf(ctx, "C%u@%llu ", frame, (unsigned long long)t);
}

static const char *slice(struct strbuf *sb, const struct tl_span *s, size_t n, uint64_t join)
{
	struct tl_sink sink = { sb, on_open, on_close };

	sb_reset(sb);
	tl_slice(s, n, join, &sink);
	return sb_str(sb);
}

static void test_slices(void)
{
	static const uint32_t main_frame[] = { 1 }, loop[] = { 1, 2 }, spike[] = { 1, 3 },
			      deep[] = { 1, 3, 4 };
	struct strbuf sb = STRBUF_INIT;
	struct tl_span run[] = {
		{ 0, 10, loop, 2 }, { 10, 20, loop, 2 }, { 20, 30, loop, 2 },
		{ 30, 40, spike, 2 }, { 40, 50, deep, 3 }, { 50, 60, main_frame, 1 },
	};
	struct tl_span gap[] = { { 0, 10, loop, 2 }, { 100, 110, loop, 2 } };
	struct tl_span overlap[] = { { 0, 10, loop, 2 }, { 5, 15, spike, 2 } };
	struct tl_span inside[] = { { 0, 10, loop, 2 }, { 2, 8, spike, 2 } };

	CHECK_STR("slices: equal stacks in a row are one slice; shared callers stay open",
		  slice(&sb, run, 6, 5),
		  "O1@0 O2@0 C2@30 O3@30 O4@40 C4@50 C3@50 C1@60 ");
	CHECK_STR("slices: a gap longer than join closes everything",
		  slice(&sb, gap, 2, 5), "O1@0 O2@0 C2@10 C1@10 O1@100 O2@100 C2@110 C1@110 ");
	CHECK_STR("slices: a gap up to join is bridged",
		  slice(&sb, gap, 2, 90), "O1@0 O2@0 C2@110 C1@110 ");
	CHECK_STR("slices: an overlapping span starts where the previous ends, its end kept",
		  slice(&sb, overlap, 2, 5), "O1@0 O2@0 C2@10 O3@10 C3@15 C1@15 ");
	CHECK_STR("slices: a span inside the previous one keeps 1 ns",
		  slice(&sb, inside, 2, 5), "O1@0 O2@0 C2@10 O3@10 C3@11 C1@11 ");
	CHECK_STR("slices: nothing in, nothing out", slice(&sb, run, 0, 5), "");
	sb_free(&sb);
}

static void test_bound(void)
{
	static const struct frame_sym *none[1];
	struct profile *p = profile_new(100);
	struct sample s = { .pid = 7, .tid = 8, .vmstate = -1, .frames = none, .count = 1 };
	struct timeline_event *ev;
	struct strbuf sb = STRBUF_INIT;

	profile_add(p, &s);
	CHECK("timeline: none unless kept", !p->timeline);
	profile_keep_timeline(p, 1000, 1000000, 3);
	for (int i = 0; i < 5; i++) {
		s.time_ns = 5000000 - (uint64_t)i * 1000000;
		s.tid = 8 + (uint32_t)(i & 1);
		profile_add(p, &s);
	}
	CHECK("timeline: bounded, the rest dropped and counted",
	      p->timeline->n == 3 && p->timeline->dropped == 2);
	CHECK("timeline: the classes still hold every sample",
	      p->nsamples == 2 && p->samples[0].count == 4 && p->samples[1].count == 2);
	ev = timeline_sorted(p);
	CHECK("timeline: sorted by thread, then time",
	      ev && p->samples[ev[0].sample].tid == 8 && ev[0].time_ns == 3000000 &&
	      ev[1].time_ns == 5000000 && p->samples[ev[2].sample].tid == 9);
	free(ev);
	CHECK("timeline: a thread's name is wanted first", timeline_wants_name(p->timeline, 7, 8, 5));
	timeline_set_thread_name(p, 7, 8, "worker", 5);
	timeline_set_thread_name(p, 7, 8, "?", 6);
	CHECK_STR("timeline: thread names; a gone thread keeps its name",
		  timeline_thread_name(p->timeline, 7, 8), "worker");
	CHECK("timeline: ... then once a second",
	      !timeline_wants_name(p->timeline, 7, 8, 1000000005) &&
	      timeline_wants_name(p->timeline, 7, 8, 1000000007));
	CHECK("timeline: unnamed thread", !timeline_thread_name(p->timeline, 7, 9));
	CHECK("timeline: its bytes are accounted", timeline_bytes(p->timeline) >=
	      3 * sizeof(struct timeline_event));
	timeline_summary(p->timeline, &sb);
	CHECK_STR("timeline: the summary shows the drops", sb_str(&sb),
		  "luabpfprof: timeline: 3 events of 1 thread (0.0 MiB), 2 dropped past the bound of 3");
	sb_free(&sb);
	profile_free(p);
}

/* What export wrote for p, malloc'd; NULL when it failed. */
static char *render(int (*export)(FILE *, const struct profile *, const struct export_opts *),
		    const struct profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc = f ? export(f, p, NULL) : -1;

	if (f)
		fclose(f);
	if (rc) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Both exporters on a two-thread timeline: one slice per run of equal
 * stacks, times in microseconds since the origin, names per thread. */
static void test_export(void)
{
	struct profile *p = profile_new(100);	/* 10 ms period */
	struct frame_sym fa = { .kind = SYM_LUA, .name = "a", .chunk = "@/x/t.lua",
				.firstline = 3, .line = 4 };
	const struct frame_sym *fr[1] = { profile_frame(p, &fa) };
	struct sample s = { .pid = 7, .tid = 7, .vmstate = -1, .frames = fr, .nframes = 1,
			    .count = 1 };
	char *buf;

	profile_set_comm(p, 7, "game");
	buf = render(export_chrome, p);
	CHECK("export: no timeline is an empty trace, with the origin event", buf && strstr(buf, "\"traceEvents\":[\n{") &&
	      strstr(buf, "\"origin_ns\":0"));
	free(buf);
	profile_keep_timeline(p, 1000000000, 1000000, 16);
	for (int i = 1; i <= 3; i++) {
		s.time_ns = 1000000000 + (uint64_t)i * 10000000;
		profile_add(p, &s);
	}
	s.tid = 8;
	profile_add(p, &s);
	timeline_set_thread_name(p, 7, 8, "worker", s.time_ns);
	buf = render(export_chrome, p);
	CHECK("export: chrome: three samples in a row are one slice, 0 to 30 ms",
	      buf && strstr(buf, "{\"ph\":\"B\",\"pid\":7,\"tid\":7,\"ts\":0.000,"
			    "\"cat\":\"lua\",\"name\":\"t.lua:a\"},\n"
			    "{\"ph\":\"E\",\"pid\":7,\"tid\":7,\"ts\":30000.000,"));
	CHECK("export: chrome: thread names, else the comm",
	      buf && strstr(buf, "\"tid\":8,\"name\":\"thread_name\",\"args\":{\"name\":\"worker\"}") &&
	      strstr(buf, "\"tid\":7,\"name\":\"thread_name\",\"args\":{\"name\":\"game\"}"));
	free(buf);
	buf = render(export_speedscope_evented, p);
	CHECK("export: evented: a profile per thread, O and C over the shared frames",
	      buf && strstr(buf, "{\"type\":\"evented\",\"name\":\"game (pid 7, tid 7)\","
			    "\"unit\":\"microseconds\",\"startValue\":0,\"events\":["
			    "{\"type\":\"O\",\"frame\":0,\"at\":0.000},"
			    "{\"type\":\"C\",\"frame\":0,\"at\":30000.000}],\"endValue\":30000.000}") &&
	      strstr(buf, "\"worker (pid 7, tid 8)\""));
	free(buf);
	profile_free(p);
}

int main(void)
{
	test_slices();
	test_bound();
	test_export();
	UNIT_EXIT();
}
