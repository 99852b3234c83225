// SPDX-License-Identifier: MIT
/* The table of `luabpfprof top` on the report fixture (test_view_fixture.h):
 * 100 samples; charged to the topmost Lua function, work (app.lua:1) owns
 * 65 (25 compiled, 40 interpreted), helper (lib.lua:10) 25 (10 of them in
 * string.rep, C), outer 6 (GC), the main chunk 3 (JIT compiler), and one
 * sample ran no Lua. */
#include "report/top_table.h"
#include "report/test_view_fixture.h"

#include <locale.h>

static const struct top_row *find(const struct top_row **rows, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(rows[i]->key, key))
			return rows[i];
	return NULL;
}

static const char *line(const struct top_table *t, const struct top_layout *l,
			const struct top_row *r)
{
	static struct strbuf sb;

	sb_reset(&sb);
	top_render_row(t, l, r, &sb);
	return sb_str(&sb);
}

static void test_counts(void)
{
	struct profile *p = fixture(42);
	struct top_table *t = top_table_new(false);
	struct top_view v = { .sort = TOP_COL_OWN_PCT };
	const struct top_row **rows, *work, *helper, *outer, *main_, *host;
	size_t n;

	p->duration_ns = 1000000000ull;
	top_table_add(t, p);
	n = top_table_rows(t, &v, &rows);
	CHECK("five rows: four functions and [no Lua]", n == 5);
	work = find(rows, n, "app.lua:1");
	helper = find(rows, n, "lib.lua:10");
	outer = find(rows, n, "app.lua:5");
	main_ = find(rows, n, "app.lua:0");
	host = find(rows, n, "[no Lua]");
	CHECK("rows found", work && helper && outer && main_ && host);
	if (!work || !helper || !outer || !main_ || !host)
		return;
	CHECK("work owns 65, total 65", work->own == 65 && work->total == 65);
	CHECK("helper owns 25 (string.rep's C time included)", helper->own == 25 &&
	      helper->total == 25);
	CHECK("outer owns 6, total 86", outer->own == 6 && outer->total == 86);
	CHECK("main chunk owns 3, total 99", main_->own == 3 && main_->total == 99);
	CHECK("[no Lua]: 1", host->own == 1 && host->total == 1);
	CHECK("[no Lua]: a host sample has no VM state (--jp v's [host])",
	      !host->mix[VM_COMPILED] && !host->mix[VM_INTERP] && !host->mix[VM_C] &&
	      !host->mix[VM_GC] && !host->mix[VM_JIT]);
	CHECK("sorted by own: work, helper, outer, main, [no Lua]",
	      rows[0] == work && rows[1] == helper && rows[2] == outer && rows[3] == main_ &&
	      rows[4] == host);
	CHECK("work's mix: 25 N, 40 I", work->mix[VM_COMPILED] == 25 && work->mix[VM_INTERP] == 40 &&
	      !work->mix[VM_C]);
	CHECK("helper's mix: 15 I, 10 C", helper->mix[VM_INTERP] == 15 &&
	      helper->mix[VM_C] == 10);
	CHECK("outer: GC; main: JIT compiler", outer->mix[VM_GC] == 6 &&
	      main_->mix[VM_JIT] == 3);
	CHECK("totals", top_table_totals(t)->weight == 100 && top_table_totals(t)->events == 100);
	CHECK_STR("name kept", work->name, "work");
	free(rows);

	v.sort = TOP_COL_TOTAL_PCT;
	n = top_table_rows(t, &v, &rows);
	CHECK("sorted by total: main, outer, work, helper", n == 5 && rows[0] == main_ &&
	      rows[1] == outer && rows[2] == work && rows[3] == helper);
	free(rows);
	v.ascending = true;
	n = top_table_rows(t, &v, &rows);
	CHECK("ascending total: [no Lua] first, main last", n == 5 && rows[0] == host &&
	      rows[4] == main_);
	free(rows);
	v = (struct top_view){ .sort = TOP_COL_NAME };
	n = top_table_rows(t, &v, &rows);
	CHECK("by name: [no Lua], app.lua:0 first", n == 5 && rows[0] == host && rows[1] == main_);
	free(rows);
	v = (struct top_view){ .sort = TOP_COL_MIX + VM_C };
	n = top_table_rows(t, &v, &rows);
	CHECK("by C share: helper (40%) first; [no Lua] ran no VM", n == 5 && rows[0] == helper &&
	      rows[0]->mix[VM_C] == 10);
	free(rows);
	v = (struct top_view){ .sort = TOP_COL_OWN, .filter = "LIB" };
	n = top_table_rows(t, &v, &rows);
	CHECK("filter: case-insensitive substring", n == 1 && rows[0] == helper);
	free(rows);

	/* A second interval adds up. */
	top_table_add(t, p);
	v = (struct top_view){ .sort = TOP_COL_OWN };
	n = top_table_rows(t, &v, &rows);
	CHECK("two intervals: work owns 130 of 200", rows[0]->own == 130 &&
	      top_table_totals(t)->weight == 200 && top_table_totals(t)->seconds == 2.0);
	free(rows);
	top_table_reset(t);
	n = top_table_rows(t, &v, &rows);
	CHECK("reset: empty", n == 0 && top_table_totals(t)->weight == 0);
	free(rows);
	top_table_free(t);
	profile_free(p);
}

static void test_render(void)
{
	struct profile *p = fixture(42);
	struct top_table *t = top_table_new(false);
	struct top_view v = { .sort = TOP_COL_OWN_PCT };
	struct top_layout l;
	struct strbuf sb = STRBUF_INIT;
	const struct top_row **rows;
	size_t n;

	top_table_add(t, p);
	n = top_table_rows(t, &v, &rows);
	CHECK("five rows to render", n == 5);
	top_layout_for(80, false, &l);
	CHECK("80 columns: every column", l.col[TOP_COL_OWN] && l.col[TOP_COL_TOTAL] &&
	      l.col[TOP_COL_MIX + 4] && !l.col[TOP_COL_PROC] && l.name_width == 80 - 51);
	top_render_head(&l, &v, &sb);
	CHECK_STR("head at 80", sb_str(&sb),
		  " *OWN% TOTAL%     OWN   TOTAL  N%  I%  C%  G%  J%  FUNCTION                     ");
	CHECK_STR("work's line", line(t, &l, rows[0]),
		  "  65.0   65.0   650ms   650ms  38  62   .   .   .  app.lua:1 (work)             ");
	CHECK_STR("helper's line", line(t, &l, rows[1]),
		  "  25.0   25.0   250ms   250ms   .  60  40   .   .  lib.lua:10 (helper)          ");
	CHECK("a line is the width", strlen(line(t, &l, rows[4])) == 80);
	top_layout_for(40, false, &l);
	CHECK("40 columns: no mix, own time only", !l.col[TOP_COL_MIX] && l.col[TOP_COL_OWN] &&
	      !l.col[TOP_COL_TOTAL] && l.col[TOP_COL_OWN_PCT] && l.name_width == 40 - 23);
	top_layout_for(36, false, &l);
	CHECK_STR("work's line at 36: no times", line(t, &l, rows[0]),
		  "  65.0   65.0  app.lua:1 (work)     ");
	top_layout_for(10, false, &l);
	CHECK("10 columns: cut, never longer", strlen(line(t, &l, rows[0])) == 10);
	top_layout_for(58, false, &l);
	CHECK("58 columns: the mix goes from the right (J, G, C)", l.col[TOP_COL_MIX + 1] &&
	      !l.col[TOP_COL_MIX + 2] && l.col[TOP_COL_TOTAL]);
	CHECK("number keys: 3rd visible column is own time",
	      top_layout_col_at(&l, 2) == TOP_COL_OWN && top_layout_col_at(&l, 40) == -1);
	CHECK("'>' from I% skips the hidden mix to the name",
	      top_layout_step(&l, TOP_COL_MIX + 1, 1) == TOP_COL_NAME);
	CHECK("'<' from own% stays (first column)",
	      top_layout_step(&l, TOP_COL_OWN_PCT, -1) == TOP_COL_OWN_PCT);
	free(rows);
	sb_free(&sb);
	top_table_free(t);
	profile_free(p);
}

static void test_processes(void)
{
	struct profile *p = fixture(42), *q = fixture(43);
	struct top_table *t = top_table_new(true);
	struct top_view v = { .sort = TOP_COL_OWN_PCT, .filter = "43" };
	struct top_layout l;
	const struct top_row **rows;
	size_t n;

	profile_set_comm(q, 43, "nginx");
	top_table_add(t, p);
	top_table_add(t, q);
	n = top_table_rows(t, &v, &rows);
	CHECK("per process: the filter takes a pid", n == 5 && rows[0]->pid == 43 &&
	      rows[0]->own == 65);
	top_layout_for(80, true, &l);
	CHECK_STR("a process's line", line(t, &l, rows[0]),
		  "43     nginx      32.5   32.5   650ms   650ms  38  62   .   .  app.lua:1 (work) ");
	CHECK("80 columns with a process: J% went", !l.col[TOP_COL_MIX + 4] && l.comm);
	free(rows);
	v.filter = "nginx";
	n = top_table_rows(t, &v, &rows);
	CHECK("the filter takes a comm", n == 5);
	free(rows);
	top_table_free(t);
	profile_free(p);
	profile_free(q);
}

/* One process whose comm is s, rendered at 80 columns. */
static const char *comm_line(const char *s, bool ascii)
{
	static char out[256];
	struct profile *q = fixture(43);
	struct top_table *t = top_table_new(true);
	struct top_view v = { .sort = TOP_COL_OWN_PCT };
	struct top_layout l;
	const struct top_row **rows;
	size_t n;

	profile_set_comm(q, 43, s);
	top_table_add(t, q);
	n = top_table_rows(t, &v, &rows);
	top_layout_for(80, true, &l);
	l.ascii = ascii;
	snprintf(out, sizeof(out), "%s", n ? line(t, &l, rows[0]) : "");
	free(rows);
	top_table_free(t);
	profile_free(q);
	return out;
}

/* A comm with a CR would return to the PID column and overwrite it:
 * escaped, cut to its column by whole escapes or characters (by columns:
 * a CJK character takes 2), escaped whole in a locale that is not UTF-8. */
static void test_comm_escaped(void)
{
	const char *utf8 = "\xc3\xa9t\xc3\xa9-\xe4\xb8\xad\xe6\x96\x87\xe5\xad\x97";

	CHECK_STR("a CR in a comm: escaped, the PID kept", comm_line("\r99999 x", false),
		  "43     \\x0d9999   65.0   65.0   650ms   650ms  38  62   .   .  app.lua:1 (work) ");
	CHECK_STR("a UTF-8 comm in an ASCII locale: escaped", comm_line(utf8, true),
		  "43     \\xc3\\xa9   65.0   65.0   650ms   650ms  38  62   .   .  app.lua:1 (work) ");
	if (setlocale(LC_CTYPE, "C.UTF-8"))
		CHECK_STR("a UTF-8 comm of 10 columns: cut to 8, before a CJK character",
			  comm_line(utf8, false),
			  "43     \xc3\xa9t\xc3\xa9-\xe4\xb8\xad\xe6\x96\x87   65.0   65.0   650ms   650ms  38  62   .   .  app.lua:1 (work) ");
	setlocale(LC_CTYPE, "C");
}

static void test_units(void)
{
	struct profile *p = profile_new(99);
	struct top_table *t = top_table_new(false);
	char buf[32];
	uint64_t ticks = 0;

	p->event = PROFILE_OFFCPU;
	top_table_add(t, p);
	top_format_weight(t, 1500000000ull, buf, sizeof(buf));
	CHECK_STR("off-CPU: nanoseconds", buf, "1.50s");
	top_format_weight(t, 125000000000ull, buf, sizeof(buf));
	CHECK_STR("minutes", buf, "2m05s");
	top_table_free(t);
	profile_free(p);
	CHECK("stat: utime + stime after a comm with ') '",
	      !top_parse_stat_ticks("12 (a) b) R 1 12 12 0 -1 4194560 100 0 0 0 250 50 0 0", &ticks) &&
	      ticks == 300);
	CHECK("stat: garbage refused", top_parse_stat_ticks("12 (x", &ticks) == -1);
	CHECK("cpu: 50 ticks of 100/s in 0.5 s is 100%",
	      top_cpu_percent(100, 150, 0.5, 100) == 100.0);
	CHECK("cpu: a counter that went back is 0", top_cpu_percent(150, 100, 1, 100) == 0);
}

int main(void)
{
	test_counts();
	test_render();
	test_processes();
	test_comm_escaped();
	test_units();
	UNIT_EXIT();
}
