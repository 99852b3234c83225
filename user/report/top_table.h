/* SPDX-License-Identifier: MIT */
/* The model of `luabpfprof top`: the Lua functions of the profiles a
 * session hands over interval by interval, added up since the start or
 * the last reset, sorted and laid out as text for a screen of a given
 * width.  Pure: no terminal, no clock, no /proc (cli/top_cmd.c draws it).
 *
 * A sample is charged to its topmost Lua function (own), as jit.p's 'f'
 * view and the --jit report charge it, so C functions and builtins count
 * as the Lua function that called them; every Lua function on its stack
 * gets it once as total.  The VM-state mix of a row is that of its own
 * samples.  Samples with no Lua frame make one row, "[no Lua]". */
#ifndef LBP_TOP_TABLE_H
#define LBP_TOP_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/strbuf.h"
#include "model/profile.h"
#include "report/export_stack.h"

/* The columns, in screen order; each is a sort key. */
enum top_col {
	TOP_COL_PROC,		/* pid and comm: -a or several processes */
	TOP_COL_OWN_PCT,
	TOP_COL_TOTAL_PCT,
	TOP_COL_OWN,		/* own time (or bytes, or samples) */
	TOP_COL_TOTAL,
	/* + enum vm_class, as jit.p's 'v' view letters them: N compiled,
	 * I interpreted, C C code, G garbage collector, J JIT compiler. */
	TOP_COL_MIX,
	TOP_COL_NAME = TOP_COL_MIX + VM_NCLASS,
	TOP_COL__N,
};

struct top_row {
	uint32_t pid;
	const char *comm;
	const char *key;	/* "chunk:firstline" ("w631.lua:9"), or "[no Lua]" */
	const char *name;	/* the name a caller gave it ("a"), or NULL */
	uint64_t own, total;	/* in the profile's unit */
	uint64_t mix[VM_NCLASS];	/* own, by VM state (enum vm_class) */
};

/* What the header says, added up since the start or the last reset. */
struct top_totals {
	uint64_t weight;	/* all samples' weight: the 100% */
	uint64_t events;	/* samples, or switches off the CPU */
	uint64_t lost;		/* samples lost on the way (profile_stats_lost) */
	uint64_t unknown;	/* frames that could not be named */
	double seconds;		/* covered by the intervals added */
	uint64_t last_events;	/* in the last interval */
	double last_seconds;
};

struct top_table;

/* per_process: rows are per process and function (-a, several PIDs). */
struct top_table *top_table_new(bool per_process);
void top_table_free(struct top_table *t);

/* Adds one interval's profile.  Returns -1 when out of memory (the
 * interval is then partly added). */
int top_table_add(struct top_table *t, const struct profile *p);

/* Forgets every row and total (the 'r' key). */
void top_table_reset(struct top_table *t);

const struct top_totals *top_table_totals(const struct top_table *t);
bool top_table_per_process(const struct top_table *t);

/* How rows are chosen and ordered. */
struct top_view {
	enum top_col sort;
	bool ascending;		/* default: the largest first (names: A first) */
	const char *filter;	/* NULL or "": every row; else a substring of
				 * the name, key, comm or pid */
};

/* The rows the view shows, sorted, into *out (malloc'd, pointers into the
 * table, valid until the next add or reset).  Returns their count. */
size_t top_table_rows(const struct top_table *t, const struct top_view *v,
		      const struct top_row ***out);

/* Which columns fit a screen width: the name keeps at least 16 columns;
 * the mix goes first, then the times, then the comm beside the pid. */
struct top_layout {
	int width;
	bool col[TOP_COL__N];
	bool comm;		/* the process column shows the comm too */
	bool ascii;		/* the terminal's locale is not UTF-8: escape the rest */
	int name_width;
};

void top_layout_for(int width, bool per_process, struct top_layout *l);

/* The column of screen position pos (0-based, visible columns only), or
 * -1: the number keys sort by it. */
int top_layout_col_at(const struct top_layout *l, int pos);

/* The visible column after (dir 1) or before (dir -1) col, for '<' '>'. */
enum top_col top_layout_step(const struct top_layout *l, enum top_col col, int dir);

/* The column heads, the sort column marked; exactly l->width wide. */
void top_render_head(const struct top_layout *l, const struct top_view *v, struct strbuf *sb);

/* One row, exactly l->width wide.  unit: how the profile weighs samples
 * (event, hz, alloc_every of the first profile added). */
void top_render_row(const struct top_table *t, const struct top_layout *l,
		    const struct top_row *r, struct strbuf *sb);

/* A weight in the table's unit as text: "1.25s", "340ms", "12.0M". */
void top_format_weight(const struct top_table *t, uint64_t w, char *buf, size_t len);

/* The table's event ("cpu", "off-cpu", ...), and its sample rate. */
enum profile_event top_table_event(const struct top_table *t);

/* A process's CPU use in percent of one CPU, from two readings of
 * /proc/PID/stat's utime + stime (clock ticks) dt seconds apart. */
double top_cpu_percent(uint64_t ticks_before, uint64_t ticks_now, double dt, long ticks_per_s);

/* utime + stime of a /proc/PID/stat line; -1 when it cannot be parsed. */
int top_parse_stat_ticks(const char *stat, uint64_t *ticks);

#endif
