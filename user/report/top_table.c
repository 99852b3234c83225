// SPDX-License-Identifier: MIT
/* The live table of `luabpfprof top`: rows per Lua function (and process),
 * added up interval by interval; sorting, the column layout for a width,
 * and each line's text.  See top_table.h for what a row counts. */
#define _GNU_SOURCE
#include "report/top_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashfn.h"
#include "base/hashidx.h"
#include "base/textsafe.h"
#include "base/xalloc.h"
#include "model/frame_fmt.h"

#define NO_LUA		"[no Lua]"
#define NAME_MIN	16	/* the function column keeps at least this */
#define GAP		2	/* between the numbers and the function */

struct top_table {
	bool per_process;
	bool have_unit;
	enum profile_event event;
	unsigned hz;
	uint64_t alloc_every;
	struct top_row *rows;
	uint64_t *stamp;	/* per row: the last sample that counted its total */
	size_t n, cap;
	uint64_t sample_no;
	struct hashidx idx;
	struct top_totals tot;
};

struct row_key {
	uint32_t pid;
	const char *key;
};

/* ==== Rows ==== */

static uint64_t key_hash(uint32_t pid, const char *key)
{
	return hash_bytes(key, strlen(key), hash_u64(pid, 0));
}

static uint64_t row_hash(const void *ctx, uint32_t entry)
{
	const struct top_table *t = ctx;

	return key_hash(t->rows[entry].pid, t->rows[entry].key);
}

static bool row_match(const void *ctx, uint32_t entry, const void *key)
{
	const struct top_table *t = ctx;
	const struct row_key *k = key;

	return t->rows[entry].pid == k->pid && !strcmp(t->rows[entry].key, k->key);
}

static const struct hashidx_ops row_ops = { row_hash, row_match };

struct top_table *top_table_new(bool per_process)
{
	struct top_table *t = xcalloc(1, sizeof(*t));

	t->per_process = per_process;
	return t;
}

static void free_rows(struct top_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free((char *)t->rows[i].key);
		free((char *)t->rows[i].name);
		free((char *)t->rows[i].comm);
	}
	t->n = 0;
	hashidx_clear(&t->idx);
}

void top_table_reset(struct top_table *t)
{
	free_rows(t);
	memset(&t->tot, 0, sizeof(t->tot));
}

void top_table_free(struct top_table *t)
{
	if (!t)
		return;
	free_rows(t);
	hashidx_free(&t->idx);
	free(t->rows);
	free(t->stamp);
	free(t);
}

/* The row of (pid, key), made when new. */
static struct top_row *row_for(struct top_table *t, const struct profile *p, uint32_t pid,
			       const char *key, const char *name, uint64_t **stamp)
{
	struct row_key k = { pid, key };
	uint64_t h = key_hash(pid, key);
	size_t hint;
	uint32_t i = hashidx_find(&t->idx, &row_ops, t, h, &k, &hint);
	const char *comm;

	if (i == HASHIDX_NONE) {
		if (t->n == t->cap) {
			t->cap = t->cap ? 2 * t->cap : 64;
			t->rows = xrealloc(t->rows, t->cap * sizeof(*t->rows));
			t->stamp = xrealloc(t->stamp, t->cap * sizeof(*t->stamp));
		}
		i = (uint32_t)t->n++;
		comm = t->per_process ? profile_comm(p, pid) : NULL;
		t->rows[i] = (struct top_row){ .pid = pid, .key = xstrdup(key),
					       .name = name ? xstrdup(name) : NULL,
					       .comm = xstrdup(comm ? comm : "") };
		t->stamp[i] = 0;
		hashidx_add(&t->idx, hint, i);
	}
	*stamp = &t->stamp[i];
	return &t->rows[i];
}

/* "chunk:firstline" of a Lua frame, as jit.p's 'f' prints it unnamed. */
static const char *frame_key(const struct frame_sym *f, struct strbuf *sb)
{
	struct frame_sym g = *f;

	g.name = NULL;
	sb_reset(sb);
	frame_put(sb, &g, 'f', true);
	return sb_str(sb);
}

static void add_sample(struct top_table *t, const struct profile *p, const struct sample *s,
		       struct strbuf *sb)
{
	uint32_t pid = t->per_process ? s->pid : 0;
	uint64_t w = s->count, *stamp;
	bool own_done = false;
	struct top_row *r;

	t->sample_no++;
	for (uint32_t i = 0; i < s->nframes; i++) {
		const struct frame_sym *f = s->frames[i];

		if (f->kind != SYM_LUA)
			continue;
		r = row_for(t, p, pid, frame_key(f, sb), f->name, &stamp);
		if (!own_done) {
			r->own += w;
			r->mix[vm_class_of(s->vmstate)] += w;
			own_done = true;
		}
		/* Recursion: a function counts once per sample. */
		if (*stamp != t->sample_no) {
			*stamp = t->sample_no;
			r->total += w;
		}
	}
	if (!own_done) {
		r = row_for(t, p, pid, NO_LUA, NULL, &stamp);
		r->own += w;
		r->total += w;
		/* A host sample ran no VM: its vmstate is whatever g->vmstate
		 * last held (0 reads as trace 0, compiled), and --jp v counts
		 * it as [host].  Only Lua without a frame has a state. */
		if (!(s->flags & PSAMPLE_HOST))
			r->mix[vm_class_of(s->vmstate)] += w;
	}
}

int top_table_add(struct top_table *t, const struct profile *p)
{
	struct strbuf sb = STRBUF_INIT;
	uint64_t events = 0;

	if (!t->have_unit) {
		t->have_unit = true;
		t->event = p->event;
		t->hz = p->hz;
		t->alloc_every = p->alloc_every;
	}
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct sample *s = &p->samples[i];

		add_sample(t, p, s, &sb);
		t->tot.weight += s->count;
		events += s->events ? s->events : s->count;
	}
	sb_free(&sb);
	t->tot.events += events;
	t->tot.lost += profile_stats_lost(&p->stats);
	t->tot.unknown += p->stats.sym_unknown;
	t->tot.last_events = events;
	t->tot.last_seconds = (double)p->duration_ns / 1e9;
	t->tot.seconds += t->tot.last_seconds;
	return 0;
}

const struct top_totals *top_table_totals(const struct top_table *t)
{
	return &t->tot;
}

bool top_table_per_process(const struct top_table *t)
{
	return t->per_process;
}

enum profile_event top_table_event(const struct top_table *t)
{
	return t->event;
}

/* ==== Sorting ==== */

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/* Ascending order of column col. */
static int cmp_col(const struct top_row *a, const struct top_row *b, enum top_col col)
{
	switch (col) {
	case TOP_COL_PROC:
		return cmp_u64(a->pid, b->pid);
	case TOP_COL_OWN_PCT:
	case TOP_COL_OWN:
		return cmp_u64(a->own, b->own);
	case TOP_COL_TOTAL_PCT:
	case TOP_COL_TOTAL:
		return cmp_u64(a->total, b->total);
	case TOP_COL_NAME:
		return strcmp(a->key, b->key);
	default: {
		/* A mix column: the share of the row's own time, as shown. */
		int m = col - TOP_COL_MIX;
		double x = a->own ? (double)a->mix[m] / (double)a->own : 0;
		double y = b->own ? (double)b->mix[m] / (double)b->own : 0;

		return x < y ? -1 : x > y;
	}
	}
}

static int cmp_rows(const void *x, const void *y, void *ctx)
{
	const struct top_view *v = ctx;
	const struct top_row *a = *(const struct top_row *const *)x;
	const struct top_row *b = *(const struct top_row *const *)y;
	/* Numbers: the largest first; names and pids: A and 1 first. */
	bool up = v->sort == TOP_COL_NAME || v->sort == TOP_COL_PROC;
	int c = cmp_col(a, b, v->sort);

	if (v->ascending)
		up = !up;
	if (c)
		return up ? c : -c;
	/* Ties: by own time, then by name, for a stable screen. */
	if ((c = cmp_u64(b->own, a->own)) || (c = cmp_u64(b->total, a->total)))
		return c;
	if ((c = strcmp(a->key, b->key)))
		return c;
	return cmp_u64(a->pid, b->pid);
}

static bool row_matches(const struct top_row *r, const char *filter)
{
	char pid[16];

	if (!filter || !*filter)
		return true;
	snprintf(pid, sizeof(pid), "%u", r->pid);
	return strcasestr(r->key, filter) || (r->name && strcasestr(r->name, filter)) ||
	       (r->comm && strcasestr(r->comm, filter)) || (r->pid && strstr(pid, filter));
}

size_t top_table_rows(const struct top_table *t, const struct top_view *v,
		      const struct top_row ***out)
{
	const struct top_row **rows = xcalloc(t->n + 1, sizeof(*rows));
	size_t n = 0;

	for (size_t i = 0; i < t->n; i++)
		if (row_matches(&t->rows[i], v->filter))
			rows[n++] = &t->rows[i];
	qsort_r(rows, n, sizeof(*rows), cmp_rows, (void *)v);
	*out = rows;
	return n;
}

/* ==== Layout ==== */

#define PROC_W		7	/* the pid */
#define COMM_W		9	/* " " and 8 of the comm */

static const int col_width[TOP_COL__N] = {
	[TOP_COL_PROC] = PROC_W, [TOP_COL_OWN_PCT] = 6, [TOP_COL_TOTAL_PCT] = 7,
	[TOP_COL_OWN] = 8, [TOP_COL_TOTAL] = 8,
	[TOP_COL_MIX + 0] = 4, [TOP_COL_MIX + 1] = 4, [TOP_COL_MIX + 2] = 4,
	[TOP_COL_MIX + 3] = 4, [TOP_COL_MIX + 4] = 4,
};

static const char *const col_head[TOP_COL__N] = {
	[TOP_COL_PROC] = "PID", [TOP_COL_OWN_PCT] = "OWN%", [TOP_COL_TOTAL_PCT] = "TOTAL%",
	[TOP_COL_OWN] = "OWN", [TOP_COL_TOTAL] = "TOTAL",
	[TOP_COL_MIX + 0] = "N%", [TOP_COL_MIX + 1] = "I%", [TOP_COL_MIX + 2] = "C%",
	[TOP_COL_MIX + 3] = "G%", [TOP_COL_MIX + 4] = "J%", [TOP_COL_NAME] = "FUNCTION",
};

static int used_width(const struct top_layout *l)
{
	int w = GAP + (l->comm ? COMM_W : 0);

	for (int c = 0; c < TOP_COL_NAME; c++)
		if (l->col[c])
			w += col_width[c];
	return w;
}

void top_layout_for(int width, bool per_process, struct top_layout *l)
{
	memset(l, 0, sizeof(*l));
	l->width = width > 1 ? width : 1;
	for (int c = 0; c < TOP_COL__N; c++)
		l->col[c] = true;
	l->col[TOP_COL_PROC] = l->comm = per_process;
	/* What goes first when the screen is narrow. */
	for (int m = VM_NCLASS - 1; m >= 0 && used_width(l) + NAME_MIN > l->width; m--)
		l->col[TOP_COL_MIX + m] = false;
	if (used_width(l) + NAME_MIN > l->width)
		l->col[TOP_COL_TOTAL] = false;
	if (used_width(l) + NAME_MIN > l->width)
		l->col[TOP_COL_OWN] = false;
	if (used_width(l) + NAME_MIN > l->width)
		l->comm = false;
	l->name_width = l->width - used_width(l);
	if (l->name_width < 1)
		l->name_width = 1;
}

int top_layout_col_at(const struct top_layout *l, int pos)
{
	for (int c = 0; c < TOP_COL__N; c++)
		if (l->col[c] && pos-- == 0)
			return c;
	return -1;
}

enum top_col top_layout_step(const struct top_layout *l, enum top_col col, int dir)
{
	for (int c = (int)col + dir; c >= 0 && c < TOP_COL__N; c += dir)
		if (l->col[c])
			return (enum top_col)c;
	return col;
}

/* Pads or cuts sb from start to exactly width columns. */
static void fit(struct strbuf *sb, size_t start, int width)
{
	size_t want = start + (size_t)width;

	if (sb->len > want)
		sb_truncate(sb, want);
	while (sb->len < want)
		sb_putc(sb, ' ');
}

void top_render_head(const struct top_layout *l, const struct top_view *v, struct strbuf *sb)
{
	size_t start = sb->len;

	for (int c = 0; c < TOP_COL_NAME; c++) {
		char head[16];

		if (!l->col[c])
			continue;
		/* The sort column: '*' from the largest, '^' from the smallest. */
		snprintf(head, sizeof(head), "%s%s", v->sort == (enum top_col)c ?
			 (v->ascending ? "^" : "*") : "", col_head[c]);
		if (c == TOP_COL_PROC)
			sb_printf(sb, "%-*s", PROC_W + (l->comm ? COMM_W : 0), head);
		else
			sb_printf(sb, "%*s", col_width[c], head);
	}
	sb_printf(sb, "%*s%s%s", GAP, "", v->sort == TOP_COL_NAME ? (v->ascending ? "^" : "*") : "",
		  col_head[TOP_COL_NAME]);
	fit(sb, start, l->width);
}

void top_format_weight(const struct top_table *t, uint64_t w, char *buf, size_t len)
{
	double s;

	if (t->event == PROFILE_ALLOC) {
		double b = (double)w * (double)(t->alloc_every ? t->alloc_every : 1);

		if (b < 1024.0 * 1024)
			snprintf(buf, len, "%.0fK", b / 1024);
		else if (b < 1024.0 * 1024 * 1024)
			snprintf(buf, len, "%.1fM", b / (1024.0 * 1024));
		else
			snprintf(buf, len, "%.2fG", b / (1024.0 * 1024 * 1024));
		return;
	}
	s = t->event == PROFILE_OFFCPU || t->event == PROFILE_WALL ? (double)w / 1e9 :
	    t->hz ? (double)w / t->hz : (double)w;
	if (s < 1)
		snprintf(buf, len, "%.0fms", s * 1000);
	else if (s < 100)
		snprintf(buf, len, "%.2fs", s);
	else if (s < 6000)
		snprintf(buf, len, "%um%02us", (unsigned)(s / 60), (unsigned)s % 60);
	else
		snprintf(buf, len, "%.0fh%02um", s / 3600 - 0.5, (unsigned)(s / 60) % 60);
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

void top_render_row(const struct top_table *t, const struct top_layout *l,
		    const struct top_row *r, struct strbuf *sb)
{
	struct strbuf name = STRBUF_INIT;
	size_t start = sb->len;
	int used, room;
	char buf[32];

	if (l->col[TOP_COL_PROC]) {
		sb_printf(sb, "%-*u", PROC_W, r->pid);
		/* A comm is the target's (/proc/self/comm): a CR in it would
		 * return to the PID column and overwrite it. */
		if (l->comm) {
			const char *comm = r->comm ? r->comm : "";

			used = text_put_cols(sb, comm, strlen(comm), COMM_W - 1, l->ascii);
			sb_printf(sb, "%*s", COMM_W - used, "");
		}
	}
	sb_printf(sb, "%6.1f", pct(r->own, t->tot.weight));
	sb_printf(sb, "%7.1f", pct(r->total, t->tot.weight));
	if (l->col[TOP_COL_OWN]) {
		top_format_weight(t, r->own, buf, sizeof(buf));
		sb_printf(sb, "%8s", buf);
	}
	if (l->col[TOP_COL_TOTAL]) {
		top_format_weight(t, r->total, buf, sizeof(buf));
		sb_printf(sb, "%8s", buf);
	}
	for (int m = 0; m < VM_NCLASS; m++) {
		if (!l->col[TOP_COL_MIX + m])
			continue;
		/* A dot for none: the states a function runs in stand out. */
		if (!r->mix[m])
			sb_printf(sb, "%4s", ".");
		else
			sb_printf(sb, "%4.0f", pct(r->mix[m], r->own));
	}
	sb_printf(sb, "%*s", GAP, "");
	/* The name, escaped by the one rule (base/textsafe.h) and cut to its
	 * columns, not bytes: a UTF-8 name is never cut inside a character. */
	sb_puts(&name, r->key);
	if (r->name)
		sb_printf(&name, " (%s)", r->name);
	room = l->width - used_width(l);
	used = text_put_cols(sb, sb_str(&name), name.len, room > 0 ? room : 0, l->ascii);
	sb_printf(sb, "%*s", room > used ? room - used : 0, "");
	if (room <= 0)		/* the fixed columns alone are too wide: cut */
		fit(sb, start, l->width);
	sb_free(&name);
}

/* ==== CPU use ==== */

double top_cpu_percent(uint64_t ticks_before, uint64_t ticks_now, double dt, long ticks_per_s)
{
	if (dt <= 0 || ticks_per_s <= 0 || ticks_now < ticks_before)
		return 0;
	return 100.0 * (double)(ticks_now - ticks_before) / (double)ticks_per_s / dt;
}

int top_parse_stat_ticks(const char *stat, uint64_t *ticks)
{
	/* comm may hold spaces and parentheses: fields count after the last ')'. */
	const char *p = strrchr(stat, ')');
	unsigned long long ut, st;

	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			 &ut, &st) != 2)
		return -1;
	*ticks = ut + st;
	return 0;
}
