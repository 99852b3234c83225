// SPDX-License-Identifier: MIT
/* Differential flame graph (see diff_svg.h).  Both sides' stacks go into
 * one tree keyed by (parent, frame name); NEW's counts lay it out and
 * each node's two inclusive counts colour it. */
#include "report/diff_svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashfn.h"
#include "base/hashidx.h"
#include "base/strbuf.h"
#include "base/textsafe.h"
#include "base/xalloc.h"
#include "model/diff_stats.h"
#include "model/strtab.h"
#include "report/svg_script.h"

#define NONE	UINT32_MAX

struct dnode {
	uint32_t parent, label, depth;
	uint64_t count[2];	/* inclusive, BASE and NEW */
	uint64_t start;		/* x in NEW samples */
};

struct dtree {
	struct strtab labels;
	struct dnode *n;
	uint32_t len, cap, maxdepth;
	struct hashidx idx;
	uint32_t *kids, *kid_at;	/* children of node i: kids[kid_at[i] .. kid_at[i+1]) */
};

struct dkey {
	uint32_t parent, label;
};

static uint64_t hash_node(const void *ctx, uint32_t e)
{
	const struct dtree *t = ctx;

	return hash_u64(t->n[e].label, hash_u64(t->n[e].parent, 0));
}

static bool match_node(const void *ctx, uint32_t e, const void *key)
{
	const struct dtree *t = ctx;
	const struct dkey *k = key;

	return t->n[e].parent == k->parent && t->n[e].label == k->label;
}

static const struct hashidx_ops node_ops = { hash_node, match_node };

static uint32_t child(struct dtree *t, uint32_t parent, const char *name)
{
	struct dkey k = { parent, strtab_intern(&t->labels, name, strlen(name)) };
	size_t hint;
	uint32_t id = hashidx_find(&t->idx, &node_ops, t, hash_u64(k.label, hash_u64(parent, 0)),
				   &k, &hint);

	if (id != HASHIDX_NONE)
		return id;
	if (t->len == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 256;
		t->n = xrealloc(t->n, t->cap * sizeof(*t->n));
	}
	id = t->len++;
	memset(&t->n[id], 0, sizeof(t->n[id]));
	t->n[id].parent = parent;
	t->n[id].label = k.label;
	t->n[id].depth = t->n[parent].depth + 1;
	if (t->n[id].depth > t->maxdepth)
		t->maxdepth = t->n[id].depth;
	hashidx_add(&t->idx, hint, id);
	return id;
}

static void add_side(struct dtree *t, const struct stackset *s, int side)
{
	for (size_t i = 0; i < s->nsamples; i++) {
		const struct ss_sample *sm = &s->samples[i];
		uint32_t at = 0;

		t->n[0].count[side] += sm->count;
		for (uint32_t k = 0; k < sm->n; k++) {
			at = child(t, at, strtab_str(&s->str, s->frames[sm->at + k].F));
			t->n[at].count[side] += sm->count;
		}
	}
}

static const struct dtree *sort_tree;

static int cmp_kids(const void *a, const void *b)
{
	const struct dtree *t = sort_tree;

	return strcmp(strtab_str(&t->labels, t->n[*(const uint32_t *)a].label),
		      strtab_str(&t->labels, t->n[*(const uint32_t *)b].label));
}

/* Children by name, as FlameGraph orders them; each starts where its
 * previous sibling ended.  Nodes come after their parents. */
static void layout(struct dtree *t)
{
	uint32_t *fill = xcalloc(t->len + 1, sizeof(*fill));

	t->kid_at = xcalloc(t->len + 2, sizeof(*t->kid_at));
	t->kids = xmalloc((t->len + 1) * sizeof(*t->kids));
	for (uint32_t i = 1; i < t->len; i++)
		t->kid_at[t->n[i].parent + 1]++;
	for (uint32_t i = 0; i < t->len; i++)
		t->kid_at[i + 1] += t->kid_at[i];
	for (uint32_t i = 1; i < t->len; i++) {
		uint32_t p = t->n[i].parent;

		t->kids[t->kid_at[p] + fill[p]++] = i;
	}
	sort_tree = t;
	for (uint32_t i = 0; i < t->len; i++) {
		uint64_t x = t->n[i].start;

		qsort(t->kids + t->kid_at[i], t->kid_at[i + 1] - t->kid_at[i], sizeof(*t->kids),
		      cmp_kids);
		for (uint32_t k = t->kid_at[i]; k < t->kid_at[i + 1]; k++) {
			t->n[t->kids[k]].start = x;
			x += t->n[t->kids[k]].count[1];
		}
	}
	free(fill);
}

/* A file's name, safe for a terminal and for XML: text_put's \xNN for
 * what textsafe finds unsafe, then the XML entities; "..", past max. */
static void put_xml(struct strbuf *sb, const char *s, size_t max)
{
	struct strbuf safe = STRBUF_INIT;
	size_t n, keep;

	text_put(&safe, s);
	n = safe.len;
	keep = max && n > max ? max - 2 : n;
	for (size_t i = 0; i < keep; i++) {
		char c = sb_str(&safe)[i];

		switch (c) {
		case '&': sb_puts(sb, "&amp;"); break;
		case '<': sb_puts(sb, "&lt;"); break;
		case '>': sb_puts(sb, "&gt;"); break;
		case '"': sb_puts(sb, "&quot;"); break;
		default: sb_putc(sb, c); break;
		}
	}
	if (keep < n)
		sb_puts(sb, "..");
	sb_free(&safe);
}

struct drawing {
	const struct dtree *t;
	const double *span;
	double z, conf, maxd;
	uint64_t total;		/* NEW's samples: the width */
	int height;
};

/* Red for growth, blue for shrinking, deeper with the change's size
 * against the largest significant one; grey for noise. */
static void put_fill(struct strbuf *sb, const struct share_change *c, double maxd)
{
	double t = maxd > 0 ? fmin(1, fabs(c->d) / maxd) : 1;
	int v = (int)lround(200 - 160 * t);

	if (!c->significant)
		sb_puts(sb, DIFF_SVG_NOISE_RGB);
	else if (c->d > 0)
		sb_printf(sb, "rgb(255,%d,%d)", v, v);
	else
		sb_printf(sb, "rgb(%d,%d,255)", v, v);
}

static void change_of(const struct drawing *dr, const struct dnode *nd, struct share_change *c)
{
	diff_share(nd->count[0], (uint64_t)ceil(dr->span[0]), nd->count[1],
		   (uint64_t)ceil(dr->span[1]), dr->z, c);
}

static void put_node(struct strbuf *sb, const struct drawing *dr, uint32_t i)
{
	const struct dnode *nd = &dr->t->n[i];
	const char *label = i ? strtab_str(&dr->t->labels, nd->label) : "all";
	double scale = (SVG_IMAGE_WIDTH - 2 * SVG_XPAD) / (double)dr->total;
	double x = SVG_XPAD + (double)nd->start * scale, w = (double)nd->count[1] * scale;
	int y = dr->height - SVG_BOTTOM_PAD - (int)(nd->depth + 1) * SVG_FRAME_HEIGHT;
	struct share_change c;

	if (w < SVG_MIN_WIDTH)
		return;
	change_of(dr, nd, &c);
	sb_printf(sb, "<g class=\"f\" data-s=\"%llu\" data-n=\"%llu\" data-d=\"%u\"><title>",
		  (unsigned long long)nd->start, (unsigned long long)nd->count[1], nd->depth);
	put_xml(sb, label, 0);
	sb_printf(sb, "\nBASE %.2f%%, NEW %.2f%%: %+.2f points, %g%% interval [%+.2f, %+.2f]%s",
		  100 * c.pa, 100 * c.pb, 100 * c.d, 100 * dr->conf, 100 * c.lo, 100 * c.hi,
		  c.significant ? "" : ", inside the noise");
	sb_printf(sb, "</title><rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"",
		  x, y, w, SVG_FRAME_HEIGHT - 1);
	put_fill(sb, &c, dr->maxd);
	sb_printf(sb, "\" rx=\"2\"/><text x=\"%.2f\" y=\"%d\">", x + 3, y + SVG_FRAME_HEIGHT - 4);
	if (w >= 3 * SVG_CHAR_WIDTH + 6)
		put_xml(sb, label, (size_t)((w - 6) / SVG_CHAR_WIDTH));
	sb_puts(sb, "</text></g>\n");
}

static void put_head(struct strbuf *sb, const struct drawing *dr, const struct diff_out_opts *o)
{
	int h = dr->height;

	svg_document_open(sb, h, dr->total);
	sb_printf(sb, "<text id=\"title\" x=\"%d\" y=\"22\">Differential flame graph: ",
		  SVG_IMAGE_WIDTH / 2);
	put_xml(sb, o->new_name, 80);
	sb_puts(sb, " against ");
	put_xml(sb, o->base_name, 80);
	sb_printf(sb, "</text>\n<text id=\"subtitle\" x=\"%d\" y=\"40\">NEW's shape; red grew, blue "
		  "shrank (%s, %g%% intervals), grey: noise; click to zoom, Ctrl-F to search</text>\n",
		  SVG_IMAGE_WIDTH / 2, o->per_second ? "per second" : "share of samples",
		  100 * o->confidence);
	svg_document_controls(sb, h);
}

static void tree_free(struct dtree *t)
{
	strtab_free(&t->labels);
	hashidx_free(&t->idx);
	free(t->n);
	free(t->kids);
	free(t->kid_at);
}

int diff_svg_write(FILE *f, const struct stackset *base, const struct stackset *now,
		   const double span[2], const struct diff_out_opts *o)
{
	struct dtree t = { .labels = STRTAB_INIT };
	struct drawing dr = { .t = &t, .span = span, .conf = o->confidence };
	struct strbuf sb = STRBUF_INIT;
	int rc;

	strtab_intern(&t.labels, "", 0);
	t.cap = 256;
	t.n = xcalloc(t.cap, sizeof(*t.n));
	t.len = 1;	/* the root, "all" */
	add_side(&t, base, 0);
	add_side(&t, now, 1);
	layout(&t);
	dr.z = diff_z(o->confidence);
	dr.total = t.n[0].count[1];
	dr.height = SVG_TOP_PAD + SVG_BOTTOM_PAD + (int)(t.maxdepth + 2) * SVG_FRAME_HEIGHT;
	for (uint32_t i = 1; i < t.len; i++) {
		struct share_change c;

		change_of(&dr, &t.n[i], &c);
		if (c.significant && fabs(c.d) > dr.maxd)
			dr.maxd = fabs(c.d);
	}
	put_head(&sb, &dr, o);
	for (uint32_t i = 0; dr.total && i < t.len; i++)
		put_node(&sb, &dr, i);
	if (!dr.total)
		sb_printf(&sb, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">NEW has no samples</text>\n",
			  SVG_IMAGE_WIDTH / 2, SVG_TOP_PAD + SVG_FRAME_HEIGHT);
	sb_puts(&sb, "</svg>\n");
	rc = fwrite(sb_str(&sb), 1, sb.len, f) == sb.len ? 0 : -1;
	sb_free(&sb);
	tree_free(&t);
	return rc;
}
