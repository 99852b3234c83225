// SPDX-License-Identifier: MIT
/* Notes on functions inlined without a snapshot (report/inlined_notes.c):
 * one line per trace, heaviest first, the functions its time was counted
 * in with their shares; samples drained after the exit (no trace start)
 * join their trace's note; nothing without such samples. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/inlined_notes.h"
#include "base/unit.h"

static const struct frame_sym *lua(struct profile *p, const char *name, int firstline, int line)
{
	struct frame_sym f = { .kind = SYM_LUA, .name = name, .chunk = "@/src/sn.lua",
			       .firstline = firstline, .line = line };

	return profile_frame(p, &f);
}

static void add(struct profile *p, int32_t trace, const char *start, const char *inlined,
		uint64_t count, const struct frame_sym **frames, uint32_t n)
{
	struct sample s = { .pid = 1, .tid = 1, .vmstate = trace, .trace_start = start,
			    .inlined = inlined, .frames = frames, .nframes = n, .count = count };

	profile_add(p, &s);
}

static char *render(const struct profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	inlined_notes_write(f, p, "x: ");
	fclose(f);
	return buf;
}

int main(void)
{
	struct profile *p = profile_new(100);
	struct frame_sym nat = { .kind = SYM_NATIVE, .cname = "memset" };
	const struct frame_sym *av10 = lua(p, "Av", 7, 10), *av11 = lua(p, "Av", 7, 11);
	const struct frame_sym *atv = lua(p, "Atv", 15, 18), *chunk = lua(p, NULL, 0, 32);
	const struct frame_sym *m = profile_frame(p, &nat);
	const struct frame_sym *s1[] = { av10, chunk }, *s2[] = { m, av11, chunk };
	const struct frame_sym *s3[] = { atv, chunk }, *s4[] = { chunk };
	char *out;

	add(p, 0, NULL, NULL, 5, s4, 1);
	out = render(p);
	CHECK("no note without such samples", out && !*out);
	free(out);

	add(p, 2, "sn.lua:10", "sn.lua:A", 60, s1, 2);
	add(p, 2, NULL, "sn.lua:A", 20, s2, 3);		/* drained after the exit */
	add(p, 5, "sn.lua:18", "sn.lua:A, sn.lua:B", 30, s3, 2);
	add(p, 6, "sn.lua:30", NULL, 50, s4, 1);	/* nothing inlined */
	out = render(p);
	CHECK("trace 2 first, one line, its two lines one function past a C frame",
	      out && !strncmp(out, "x: note: trace 2 (sn.lua:10) inlined sn.lua:A without a "
			      "snapshot: its time is counted in sn.lua:Av (100%)\n", 98));
	CHECK("trace 5 next, with their",
	      out && strstr(out, "\nx: note: trace 5 (sn.lua:18) inlined sn.lua:A, sn.lua:B "
			    "without a snapshot: their time is counted in sn.lua:Atv (100%)\n"));
	CHECK("nothing for a trace that inlined nothing", out && !strstr(out, "trace 6"));
	free(out);
	profile_free(p);

	p = profile_new(100);
	av10 = lua(p, "Av", 7, 10);
	atv = lua(p, "Atv", 15, 18);
	chunk = lua(p, NULL, 0, 32);
	const struct frame_sym *t1[] = { av10, chunk }, *t2[] = { atv, chunk }, *t3[] = { chunk };

	add(p, 3, "sn.lua:10", "sn.lua:A", 30, t1, 2);
	add(p, 3, "sn.lua:10", "sn.lua:A", 60, t2, 2);
	add(p, 3, "sn.lua:10", "sn.lua:A", 10, t3, 1);
	out = render(p);
	CHECK("where the time went, heaviest first, with shares",
	      out && strstr(out, "counted in sn.lua:Atv (60%), sn.lua:Av (30%), sn.lua:0 (10%)\n"));
	free(out);
	profile_free(p);
	UNIT_EXIT();
}
