// SPDX-License-Identifier: MIT
/* The JIT health report and its gate on the report fixture with VM
 * states: work (app.lua:1) is 65% of the samples, 25 of them in trace 3;
 * helper (lib.lua:10) 25%, 10 of them in C; outer 6% in the GC; the main
 * chunk 3% in the JIT compiler; one [host] sample. */
#include "report/view_jit.h"
#include "report/test_view_fixture.h"

static char *render(const struct profile *p, const struct jw_result *r,
		    const struct view_jit_opts *o, char **gate, int *rc)
{
	char *buf = NULL, *gbuf = NULL;
	size_t len = 0, glen = 0;
	FILE *f = open_memstream(&buf, &len), *g = open_memstream(&gbuf, &glen);

	*rc = view_jit_write(f, g, p, r, o);
	fclose(f);
	fclose(g);
	*gate = gbuf;
	return buf;
}

int main(void)
{
	struct profile *p = fixture_with(42, true);
	struct jw_abort ab = { .pid = 42, .reason = 7, .blacklisted = true, .have_detail = true,
			       .func = "app.lua:1", .start = "app.lua:2",
			       .at = "app.lua:3", .text = "NYI: bytecode 51" };
	struct jw_abort ab2 = ab;	/* the same abort, seen in a second worker */
	/* Loop trace 3; side traces 5 (of 3/2, falling back to the
	 * interpreter) and 6 (root 3, its exit not unique). */
	struct jw_trace trs[3] = {
		{ .pid = 42, .traceno = 3, .link = 3, .linktype = 2, .func = "app.lua:1",
		  .start = "app.lua:2" },
		{ .pid = 42, .traceno = 5, .root = 3, .parent = 3, .exitno = 2, .linktype = 6,
		  .func = "app.lua:1", .start = "app.lua:4" },
		{ .pid = 42, .traceno = 6, .link = 3, .root = 3, .parent_ambiguous = true,
		  .linktype = 1, .func = "app.lua:1", .start = "app.lua:2" },
	};
	struct jw_exit ex[2] = {
		{ .pid = 42, .traceno = 3, .exitno = 2, .side = 5, .side_linktype = 6,
		  .hotexit = 10, .tryside = 4, .func = "app.lua:1", .where = "app.lua:4" },
		{ .pid = 42, .traceno = 3, .exitno = 4, .count = 12, .hotexit = 10, .tryside = 4,
		  .func = "app.lua:1", .where = "app.lua:3" },
	};
	struct jw_black bl = { .pid = 42, .op = "FORL", .func = "app.lua:1", .where = "app.lua:2" };
	struct jw_abort aborts[2];
	struct jw_result r = { .aborts = aborts, .naborts = 2, .traces = trs, .ntraces = 3,
			       .blacks = &bl, .nblacks = 1, .exits = ex, .nexits = 2, .polls = 7,
			       .poll_ns = 70000, .poll_bytes = 7 * 3449 };
	struct view_jit_opts o;
	char *out, *gate;
	int rc;

	ab2.pid = 43;
	aborts[0] = ab;
	aborts[1] = ab2;
	view_jit_opts_init(&o);
	out = render(p, &r, &o, &gate, &rc);
	CHECK("no gate: 0", rc == 0 && !*gate);
	CHECK("work first: 65%, 38.5% compiled, 61.5% interpreted",
	      strstr(out, " 65.0%    38.5%    61.5%     0.0%     0.0%     0.0%  app.lua:1\n"));
	CHECK("helper: 60% interpreted, 40% C",
	      strstr(out, " 25.0%     0.0%    60.0%    40.0%     0.0%     0.0%  lib.lua:10\n"));
	CHECK("outer: GC", strstr(out, "100.0%     0.0%  app.lua:5\n"));
	CHECK("main chunk: JIT compiler", strstr(out, "100.0%  app.lua:0\n"));
	CHECK("work's trace", strstr(out, "app.lua:1\n    trace   3 app.lua:2 loop\n"));
	CHECK("side trace 5: parent and exit",
	      strstr(out, "    trace   5 app.lua:4 interpreter  side of 3/exit 2\n"));
	CHECK("side trace 6: only its root",
	      strstr(out, "    trace   6 app.lua:2 root -> 3  side of root 3 (exit not unique)\n"));
	CHECK("hot exit with a fallback side trace",
	      strstr(out, "    exit   3/2   app.lua:4 -- hot, side trace 5 falls back to the interpreter\n"));
	CHECK("hot exit, tried 3 times, no side trace",
	      strstr(out, "    exit   3/4   app.lua:3 -- hot, taken 12 times, no side trace (3 tries failed)\n"));
	CHECK("the counting limit said",
	      strstr(out, "(exits: counted up to hotexit=10, then the JIT tries a side trace 4 times"));
	CHECK("the polls' cost",
	      strstr(out, "(7 polls of the JIT state, 0 unreadable; 10 us and 3449 bytes read per poll;"));
	CHECK("work's abort, once for two workers",
	      strstr(out, "    abort    app.lua:2 -- NYI: bytecode 51 at app.lua:3  [start blacklisted]\n"
			  "    blacklisted FORL at app.lua:2\n"));
	CHECK("the abort only under work", !strstr(strstr(out, "lib.lua:10"), "abort"));
	free(out);
	free(gate);
	/* Attached after the abort: its bytecode is not known, and the line
	 * says how to learn it. */
	aborts[0].have_detail = aborts[1].have_detail = false;
	strcpy(aborts[0].text, "NYI: bytecode ?");
	strcpy(aborts[1].text, "NYI: bytecode ?");
	aborts[0].at[0] = aborts[1].at[0] = 0;
	out = render(p, &r, &o, &gate, &rc);
	CHECK("an abort from before the attach says what is known and how to learn the rest",
	      strstr(out, "    abort    app.lua:2 -- NYI: bytecode ? (? : it aborted before luabpfprof "
			  "attached; luajit -jv, or attaching before the code warms up, names it)  "
			  "[start blacklisted]\n"));
	aborts[0] = ab;
	aborts[1] = ab2;
	CHECK("rows by share", strstr(out, "app.lua:1") < strstr(out, "lib.lua:10") &&
			       strstr(out, "lib.lua:10") < strstr(out, "app.lua:5"));
	free(out);
	free(gate);

	o.hot_pct = 10;
	o.fail_interp_pct = 60;
	out = render(p, &r, &o, &gate, &rc);
	CHECK("gate at 60%: work fails, helper (60.0%) does not", rc == 1 &&
	      strstr(gate, "app.lua:1 runs 61.5% interpreted (limit 60%): app.lua:2 -- NYI: bytecode 51 at app.lua:3") &&
	      !strstr(gate, "lib.lua"));
	CHECK("--jit-hot 10: outer and the main chunk not listed",
	      !strstr(out, "app.lua:5") && !strstr(out, "app.lua:0"));
	free(out);
	free(gate);

	o.hot_pct = 99;
	out = render(p, &r, &o, &gate, &rc);
	CHECK("nothing hot: said, gate passes", rc == 0 && strstr(out, "(no function reaches 99%"));
	free(out);
	free(gate);
	profile_free(p);
	UNIT_EXIT();
}
