// SPDX-License-Identifier: MIT
/* The call tree: every sample's stack inserted from its bottom frame, so a
 * node's total is the samples of everything below it and its self is the
 * samples where it was the top frame. */
#include "report/view_tree.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/frame_fmt.h"
#include "report/export_stack.h"
#include "base/strbuf.h"
#include "base/textsafe.h"
#include "base/xalloc.h"

struct tree_node {
	const char *label;	/* owned by the label cache or a literal */
	uint64_t total, self;
	uint64_t oncpu;		/* wall profiles: the part of total on the CPU */
	struct tree_node **kids;
	size_t nkids, cap;
};

/* Labels per frame id, formatted once. */
struct labels {
	char **byid;
	char **fnames;		/* 'f' forms, for --focus */
	uint32_t n;
};

void view_tree_opts_init(struct view_tree_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->sort = TREE_SORT_TOTAL;
	o->min = 3;
	o->scope = 'F';
}

void view_tree_opts_from_jp(struct view_tree_opts *o, const struct jp_mode *m)
{
	o->min = m->min;
	o->full_path = m->full_path;
	if (m->user_scope)
		o->scope = m->user_scope;
}

int view_tree_parse_arg(const char *arg, struct view_tree_opts *o, char *err, size_t errlen)
{
	if (!arg || !*arg || !strcmp(arg, "total")) {
		o->sort = TREE_SORT_TOTAL;
	} else if (!strcmp(arg, "self")) {
		o->sort = TREE_SORT_SELF;
	} else {
		if (err && errlen)
			snprintf(err, errlen, "invalid --tree value \"%s\": use --tree or --tree=self",
				 arg);
		return -1;
	}
	return 0;
}

static char *format_frame(const struct frame_sym *f, char scope, bool pathstrip)
{
	struct strbuf sb = STRBUF_INIT;

	frame_put(&sb, f, scope, pathstrip);
	if (!sb.buf)
		sb_puts(&sb, "");
	return sb.buf;
}

static const char *label_of(struct labels *lb, const struct frame_sym *f,
			    const struct view_tree_opts *o)
{
	if (!lb->byid[f->id])
		lb->byid[f->id] = format_frame(f, o->scope, !o->full_path);
	return lb->byid[f->id];
}

/* --focus matches the label as shown, or the bare 'f' name ("work" finds
 * "t.lua:work"). */
static bool focus_match(struct labels *lb, const struct frame_sym *f,
			const struct view_tree_opts *o)
{
	if (!strcmp(label_of(lb, f, o), o->focus))
		return true;
	if (!lb->fnames[f->id])
		lb->fnames[f->id] = format_frame(f, 'f', !o->full_path);
	return !strcmp(lb->fnames[f->id], o->focus);
}

static void labels_free(struct labels *lb)
{
	for (uint32_t i = 0; i <= lb->n; i++) {
		free(lb->byid[i]);
		free(lb->fnames[i]);
	}
	free(lb->byid);
	free(lb->fnames);
}

static struct tree_node *node_child(struct tree_node *parent, const char *label)
{
	struct tree_node *kid;

	for (size_t i = 0; i < parent->nkids; i++)
		if (!strcmp(parent->kids[i]->label, label))
			return parent->kids[i];
	if (parent->nkids == parent->cap) {
		parent->cap = parent->cap ? parent->cap * 2 : 4;
		parent->kids = xrealloc(parent->kids, parent->cap * sizeof(*parent->kids));
	}
	kid = xcalloc(1, sizeof(*kid));
	kid->label = label;
	parent->kids[parent->nkids++] = kid;
	return kid;
}

static void node_free(struct tree_node *n)
{
	for (size_t i = 0; i < n->nkids; i++) {
		node_free(n->kids[i]);
		free(n->kids[i]);
	}
	free(n->kids);
}

/* Adds one sample below root; false when --focus excludes it. */
static bool tree_add(struct tree_node *root, const struct sample *s, struct labels *lb,
		     const struct view_tree_opts *o)
{
	struct tree_node *n = root;
	int64_t start = (int64_t)s->nframes - 1;
	uint64_t oncpu = s->flags & PSAMPLE_OFFCPU ? 0 : s->count;

	if (s->flags & PSAMPLE_HOST || !s->nframes) {
		if (o->focus)
			return false;
		n = node_child(n, s->flags & PSAMPLE_HOST ? "[host]" : LABEL_EMPTY);
		n->total += s->count;
		n->self += s->count;
		n->oncpu += oncpu;
		return true;
	}
	if (o->focus) {
		/* The outermost call of the focus function becomes the root. */
		while (start >= 0 && !focus_match(lb, s->frames[start], o))
			start--;
		if (start < 0)
			return false;
	} else if (s->flags & PSAMPLE_TRUNCATED) {
		/* Its real bottom is unknown: keep it apart from full stacks. */
		n = node_child(n, LABEL_TRUNCATED);
		n->total += s->count;
		n->oncpu += oncpu;
	}
	for (int64_t i = start; i >= 0; i--) {
		n = node_child(n, label_of(lb, s->frames[i], o));
		n->total += s->count;
		n->oncpu += oncpu;
	}
	n->self += s->count;
	return true;
}

static int cmp_total(const struct tree_node *x, const struct tree_node *y)
{
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	return strcmp(x->label, y->label);
}

static int node_cmp_total(const void *a, const void *b)
{
	return cmp_total(*(const struct tree_node *const *)a,
			 *(const struct tree_node *const *)b);
}

static int node_cmp_self(const void *a, const void *b)
{
	const struct tree_node *x = *(const struct tree_node *const *)a;
	const struct tree_node *y = *(const struct tree_node *const *)b;

	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	return cmp_total(x, y);
}

static void sort_kids(struct tree_node *n, enum tree_sort sort)
{
	if (n->nkids < 2)
		return;
	qsort(n->kids, n->nkids, sizeof(*n->kids),
	      sort == TREE_SORT_SELF ? node_cmp_self : node_cmp_total);
}

/* floor(v*100/total + 0.5), jit.p's rounding for the threshold. */
static bool below_min(uint64_t v, uint64_t total, int min)
{
	return (long long)((double)v * 100.0 / (double)total + 0.5) < min;
}

/* The columns after the shares: samples; milliseconds for off-CPU and
 * wall profiles, wall ones with the on-CPU part next to them. */
static void write_amount(FILE *out, const struct profile *p, const struct tree_node *n)
{
	if (!n) {
		if (p->event == PROFILE_WALL)
			fprintf(out, " %9s %9s", "wall ms", "cpu ms");
		else
			fprintf(out, " %9s", profile_unit_ns(p) ? "ms" : "samples");
		return;
	}
	if (!profile_unit_ns(p))
		fprintf(out, " %9llu", (unsigned long long)n->total);
	else if (p->event == PROFILE_WALL)
		fprintf(out, " %9.1f %9.1f", (double)n->total / 1e6, (double)n->oncpu / 1e6);
	else
		fprintf(out, " %9.1f", (double)n->total / 1e6);
}

static void write_node(FILE *out, const struct profile *p, struct tree_node *n, int level,
		       uint64_t total, const struct view_tree_opts *o)
{
	fprintf(out, "%6.1f%% %6.1f%%", (double)n->total * 100.0 / (double)total,
		(double)n->self * 100.0 / (double)total);
	write_amount(out, p, n);
	fprintf(out, "  %*s", 2 * level, "");
	text_fput(out, n->label);
	fputc('\n', out);
	if (o->max_depth && level + 1 >= o->max_depth)
		return;
	sort_kids(n, o->sort);
	for (size_t i = 0; i < n->nkids; i++)
		if (!below_min(n->kids[i]->total, total, o->min))
			write_node(out, p, n->kids[i], level + 1, total, o);
}

static void write_section(FILE *out, const struct profile *p, const struct view_tree_opts *o,
			  const struct profile_section *want)
{
	struct tree_node root = { .label = "" };
	struct labels lb;
	uint64_t total = 0, kept = 0;

	lb.n = profile_nframes(p);
	lb.byid = xcalloc(lb.n + 1, sizeof(*lb.byid));
	lb.fnames = xcalloc(lb.n + 1, sizeof(*lb.fnames));
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct sample *s = &p->samples[i];

		if (!profile_section_has(p, want, s) || !s->count)
			continue;
		total += s->count;
		if (tree_add(&root, s, &lb, o))
			kept += s->count;
	}
	if (!total) {
		fputs("[No samples collected]\n", out);
	} else if (!kept) {
		fprintf(out, "[No samples pass through %s]\n", o->focus);
	} else {
		fprintf(out, "%7s %7s", "total", "self");
		write_amount(out, p, NULL);
		fprintf(out, "  %s\n", "function");
		sort_kids(&root, o->sort);
		for (size_t i = 0; i < root.nkids; i++)
			if (!below_min(root.kids[i]->total, total, o->min))
				write_node(out, p, root.kids[i], 0, total, o);
	}
	node_free(&root);
	labels_free(&lb);
}

int view_tree_write(FILE *out, const struct profile *p, const struct view_tree_opts *o)
{
	struct profile_section *secs;
	size_t n = profile_sections(p, o->per_thread ? SECTION_THREAD :
				    o->per_process ? SECTION_PROCESS : SECTION_PROGRAM, &secs);
	char title[128];

	for (size_t i = 0; i < n; i++) {
		if (!secs[i].all) {
			profile_section_title(p, &secs[i], title, sizeof(title));
			fputs(i ? "\n" : "", out);
			text_fput(out, title);	/* holds the target's comm */
			fputc('\n', out);
		}
		write_section(out, p, o, &secs[i]);
	}
	free(secs);
	return ferror(out) ? -1 : 0;
}
