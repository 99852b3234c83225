// SPDX-License-Identifier: MIT
/* The JIT health report: samples split by VM state per hot function
 * (the same states jit.p's 'v' mode counts: src/lj_obj.h vmstate), joined
 * with what sample/jitwatch read from the JIT itself. */
#include "report/view_jit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/textsafe.h"
#include "base/xalloc.h"
#include "model/frame_fmt.h"
#include "jit/jtrace.h"

enum jclass { JC_COMPILED, JC_INTERP, JC_C, JC_GC, JC_JIT, JC__MAX };

static const char *const jclass_head[JC__MAX] = {
	"compiled", "interp", "C", "GC", "JIT",
};

struct fn_row {
	char *key;
	uint64_t n[JC__MAX];
	uint64_t total;
};

struct one {
	char *key;
	enum jclass c;
	uint64_t count;
};

void view_jit_opts_init(struct view_jit_opts *o)
{
	*o = (struct view_jit_opts){ .hot_pct = 1.0, .fail_interp_pct = -1, .max_funcs = 20 };
}

/* g->vmstate as the profile records it: >= 0 compiled (trace number),
 * -1 interpreter, -2 C, -3 GC, -4 trace exit, -5..-7 record, optimize,
 * assemble. */
static enum jclass classify(int32_t vmstate)
{
	if (vmstate >= 0)
		return JC_COMPILED;
	switch (vmstate) {
	case -1: return JC_INTERP;
	case -2: return JC_C;
	case -3: return JC_GC;
	default: return JC_JIT;
	}
}

int view_jit_key(const struct sample *s, char *buf, size_t len)
{
	for (uint32_t i = 0; i < s->nframes; i++) {
		struct frame_sym f;
		struct strbuf sb = STRBUF_INIT;

		if (s->frames[i]->kind != SYM_LUA)
			continue;
		f = *s->frames[i];
		f.name = NULL;
		frame_put(&sb, &f, 'f', true);
		snprintf(buf, len, "%s", sb_str(&sb));
		sb_free(&sb);
		return 0;
	}
	return -1;
}

const struct jw_abort *view_jit_abort_of(const struct jw_result *r, const char *key)
{
	const struct jw_abort *best = NULL;

	for (size_t i = 0; r && i < r->naborts; i++)
		if (!strcmp(r->aborts[i].func, key) &&
		    (!best || r->aborts[i].have_detail > best->have_detail))
			best = &r->aborts[i];
	return best;
}

static char *sample_key(const struct sample *s)
{
	char buf[JW_LOC];

	return view_jit_key(s, buf, sizeof(buf)) ? NULL : xstrdup(buf);
}

static int one_cmp(const void *a, const void *b)
{
	return strcmp(((const struct one *)a)->key, ((const struct one *)b)->key);
}

static int row_cmp(const void *a, const void *b)
{
	const struct fn_row *x = a, *y = b;

	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return strcmp(x->key, y->key);
}

/* One row per function with Lua on the stack, most samples first. */
static struct fn_row *rows_build(const struct profile *p, size_t *nrows)
{
	struct one *v = xcalloc(p->nsamples + 1, sizeof(*v));
	struct fn_row *rows = xcalloc(p->nsamples + 1, sizeof(*rows));
	size_t n = 0, nr = 0;

	for (size_t i = 0; i < p->nsamples; i++) {
		char *k = sample_key(&p->samples[i]);

		if (k)
			v[n++] = (struct one){ k, classify(p->samples[i].vmstate),
					       p->samples[i].count };
	}
	qsort(v, n, sizeof(*v), one_cmp);
	for (size_t i = 0; i < n; i++) {
		if (!nr || strcmp(rows[nr - 1].key, v[i].key)) {
			rows[nr++].key = v[i].key;
		} else {
			free(v[i].key);
		}
		rows[nr - 1].n[v[i].c] += v[i].count;
		rows[nr - 1].total += v[i].count;
	}
	free(v);
	qsort(rows, nr, sizeof(*rows), row_cmp);
	*nrows = nr;
	return rows;
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

/* ==== Per function: traces, aborts, blacklisted bytecode ==== */

/* A program's processes (nginx workers) compile the same code alike: an
 * entry equal to an earlier one of another process is printed once. */
static bool same_abort(const struct jw_abort *a, const struct jw_abort *b)
{
	return !strcmp(a->func, b->func) && !strcmp(a->start, b->start) &&
	       !strcmp(a->text, b->text) && !strcmp(a->at, b->at) &&
	       a->blacklisted == b->blacklisted;
}

static bool same_trace(const struct jw_trace *a, const struct jw_trace *b)
{
	return a->traceno == b->traceno && a->link == b->link && a->root == b->root &&
	       a->linktype == b->linktype && !strcmp(a->start, b->start);
}

static bool same_exit(const struct jw_exit *a, const struct jw_exit *b)
{
	return a->traceno == b->traceno && a->exitno == b->exitno && a->side == b->side &&
	       a->count == b->count && !strcmp(a->where, b->where);
}

static bool same_black(const struct jw_black *a, const struct jw_black *b)
{
	return a->op == b->op && !strcmp(a->where, b->where);
}

#define SEEN_BEFORE(arr, i, same) ({                                          \
	bool seen_ = false;                                                   \
	for (size_t j_ = 0; j_ < (i) && !seen_; j_++)                         \
		seen_ = same(&(arr)[j_], &(arr)[i]);                          \
	seen_; })

/* What an abort's "?" means: the argument (which bytecode, which fast
 * function) is in the recorder only while it stops; an abort made before
 * the attach left its start, its reason and the blacklisting, no more. */
static const char *unknown_arg_note(const struct jw_abort *a)
{
	return !a->have_detail && strchr(a->text, '?') ?
	       " (? : it aborted before luabpfprof attached; luajit -jv, or attaching "
	       "before the code warms up, names it)" : "";
}

static void put_aborts(FILE *out, const struct jw_result *r, const char *key)
{
	for (size_t i = 0; i < r->naborts; i++) {
		const struct jw_abort *a = &r->aborts[i];

		if (strcmp(a->func, key) || SEEN_BEFORE(r->aborts, i, same_abort))
			continue;
		text_fprintf_line(out, "    abort    %s -- %s%s%s%s%s", a->start, a->text,
				  a->at[0] ? " at " : "", a->at, unknown_arg_note(a),
				  a->blacklisted ? "  [start blacklisted]" : "");
	}
}

static void put_traces(FILE *out, const struct jw_result *r, const char *key)
{
	for (size_t i = 0; i < r->ntraces; i++) {
		const struct jw_trace *t = &r->traces[i];
		char link[32] = "", side[64] = "";

		if (strcmp(t->func, key) || SEEN_BEFORE(r->traces, i, same_trace))
			continue;
		if (t->link && t->link != t->traceno)
			snprintf(link, sizeof(link), " -> %u", t->link);
		if (t->parent)
			snprintf(side, sizeof(side), "  side of %u/exit %u", t->parent, t->exitno);
		else if (t->root)
			snprintf(side, sizeof(side), "  side of root %u%s", t->root,
				 t->parent_ambiguous ? " (exit not unique)" : "");
		text_fprintf_line(out, "    trace %3u %s %s%s%s", t->traceno, t->start,
				  jtrace_link_name(t->linktype), link, side);
	}
}

static void put_blacks(FILE *out, const struct jw_result *r, const char *key)
{
	for (size_t i = 0; i < r->nblacks; i++) {
		const struct jw_black *b = &r->blacks[i];

		if (!strcmp(b->func, key) && !SEEN_BEFORE(r->blacks, i, same_black))
			text_fprintf_line(out, "    blacklisted %s at %s", b->op, b->where);
	}
}

/* Hot exits resuming in the function: -jv's numbering (trace/exit). */
static void put_exits(FILE *out, const struct jw_result *r, const char *key)
{
	for (size_t i = 0; i < r->nexits; i++) {
		const struct jw_exit *x = &r->exits[i];

		if (strcmp(x->func, key) || SEEN_BEFORE(r->exits, i, same_exit))
			continue;
		if (x->side && x->side_linktype == JLINK_INTERP)
			text_fprintf_line(out, "    exit %3u/%-3u %s -- hot, side trace %u falls back to the interpreter",
					  x->traceno, x->exitno, x->where, x->side);
		else if (x->side)
			text_fprintf_line(out, "    exit %3u/%-3u %s -- hot, side trace %u",
					  x->traceno, x->exitno, x->where, x->side);
		else
			text_fprintf_line(out, "    exit %3u/%-3u %s -- hot, taken %u times, no side trace (%d tries failed)",
					  x->traceno, x->exitno, x->where, x->count,
					  x->count - x->hotexit + 1);
	}
}

/* The gate's line: the function, its interpreted share, its reasons. */
static void put_gate(FILE *gate_out, const struct jw_result *r, const struct fn_row *row,
		     double limit)
{
	int reasons = 0;
	struct strbuf line = STRBUF_INIT;

	sb_printf(&line, "luabpfprof: --fail-if-interpreted: %s runs %.1f%% interpreted (limit %g%%)",
		  row->key, pct(row->n[JC_INTERP], row->total), limit);
	for (size_t i = 0; i < r->naborts; i++) {
		const struct jw_abort *a = &r->aborts[i];

		if (strcmp(a->func, row->key))
			continue;
		sb_printf(&line, "%s%s -- %s%s%s", reasons++ ? "; " : ": ", a->start, a->text,
			  a->at[0] ? " at " : "", a->at);
	}
	text_fprintf_line(gate_out, "%s", sb_str(&line));
	sb_free(&line);
}

int view_jit_write(FILE *out, FILE *gate_out, const struct profile *p,
		   const struct jw_result *r, const struct view_jit_opts *o)
{
	size_t nrows = 0;
	struct fn_row *rows = rows_build(p, &nrows);
	int failed = 0, listed = 0;

	fprintf(out, "\n==== JIT health: hot functions by CPU share ====\n");
	if (r->refusal[0])
		text_fprintf_line(out, "%s", r->refusal);
	fprintf(out, "%6s", "share");
	for (int c = 0; c < JC__MAX; c++)
		fprintf(out, " %8s", jclass_head[c]);
	fprintf(out, "  function\n");
	for (size_t i = 0; i < nrows; i++) {
		const struct fn_row *row = &rows[i];
		double share = pct(row->total, p->total);

		if (share < o->hot_pct || listed >= o->max_funcs)
			continue;
		listed++;
		fprintf(out, "%5.1f%%", share);
		for (int c = 0; c < JC__MAX; c++)
			fprintf(out, " %7.1f%%", pct(row->n[c], row->total));
		text_fprintf_line(out, "  %s", row->key);
		put_traces(out, r, row->key);
		put_exits(out, r, row->key);
		put_aborts(out, r, row->key);
		put_blacks(out, r, row->key);
		if (o->fail_interp_pct >= 0 &&
		    pct(row->n[JC_INTERP], row->total) > o->fail_interp_pct) {
			failed = 1;
			if (gate_out)
				put_gate(gate_out, r, row, o->fail_interp_pct);
		}
	}
	if (!listed)
		fprintf(out, "(no function reaches %g%% of the samples)\n", o->hot_pct);
	fprintf(out, "(%llu polls of the JIT state, %llu unreadable",
		(unsigned long long)r->polls, (unsigned long long)r->read_failures);
	if (r->polls)
		fprintf(out, "; %.0f us and %.0f bytes read per poll; at the end %.1f ms, %.0f KB",
			(double)r->poll_ns / 1e3 / (double)r->polls,
			(double)r->poll_bytes / (double)r->polls, (double)r->finish_ns / 1e6,
			(double)r->finish_bytes / 1024.0);
	fprintf(out, ")\n");
	if (r->nexits)
		fprintf(out, "(exits: counted up to hotexit=%d, then the JIT tries a side trace "
			"%d times and stops counting)\n", r->exits[0].hotexit, r->exits[0].tryside);
	if (r->exit_read_failures)
		fprintf(out, "(%llu traces' exits unreadable)\n",
			(unsigned long long)r->exit_read_failures);
	if (r->exited)
		fprintf(out, "(%u process%s exited before the end: %s traces and blacklisted "
			"bytecode are not known)\n", r->exited, r->exited == 1 ? "" : "es",
			r->exited == 1 ? "its" : "their");
	for (size_t i = 0; i < nrows; i++)
		free(rows[i].key);
	free(rows);
	if (ferror(out))
		return -1;
	return failed;
}
