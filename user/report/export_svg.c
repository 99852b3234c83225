// SPDX-License-Identifier: MIT
/* A self-contained, interactive SVG flame graph (or icicle graph).
 *
 * Stacks are merged from the root into a tree; each node becomes a <g>
 * holding a <title> (name, samples, share, VM states), a <rect> and a
 * <text>.  The node's place in the tree is kept as data-s (first sample
 * offset), data-n (samples) and data-d (depth), which is all the inline
 * script needs to zoom and to compute the share a search matched.
 */
#include "report/export.h"

#include <stdlib.h>
#include <string.h>

#include "model/frame_fmt.h"
#include "report/export_stack.h"
#include "report/inlined_notes.h"
#include "report/view_jit.h"
#include "report/svg_script.h"
#include "base/hashfn.h"
#include "base/textsafe.h"
#include "base/xalloc.h"


/* Colour classes.  A frame's colour says what kind of frame it is, never
 * a VM state it may only partly have been in: GC and JIT compiler time
 * are frames of their own ([Garbage Collector], [JIT Compiler]), and so
 * are the states of --vmstate-frames. */
enum color_class {
	CC_LUA, CC_C, CC_FF, CC_GC, CC_JIT, CC_COMPILED, CC_INTERP, CC_CCODE,
	CC_HOST, CC_ZONE, CC_GROUP, CC_UNKNOWN, CC_PROCESS, CC_BLOCKED, CC_WAITING, CC_NATIVE,
	CC_NCLASS
};

static const struct {
	unsigned char r, g, b;
	const char *legend;	/* NULL: not in the legend */
} palette[CC_NCLASS] = {
	[CC_LUA]      = { 232, 150, 60, "Lua function" },
	[CC_C]        = { 90, 150, 225, "C function" },
	[CC_FF]       = { 60, 190, 190, "fast function" },
	[CC_GC]       = { 225, 70, 70, "GC" },
	[CC_JIT]      = { 170, 115, 225, "JIT compiler" },
	[CC_COMPILED] = { 90, 190, 90, "state: compiled" },
	[CC_INTERP]   = { 240, 200, 90, "state: interpreted" },
	[CC_CCODE]    = { 150, 185, 235, "state: C code" },
	[CC_HOST]     = { 165, 165, 165, "host" },
	[CC_ZONE]     = { 205, 190, 120, "zone" },
	[CC_GROUP]    = { 120, 200, 170, "group (--group)" },
	[CC_UNKNOWN]  = { 242, 242, 242, "unknown (outlined)" },
	[CC_PROCESS]  = { 200, 200, 215, NULL },
	/* Off-CPU time (-e off-cpu, wall): cool colours, apart from the
	 * warm on-CPU ones. */
	[CC_BLOCKED]  = { 110, 140, 200, "mostly blocked" },
	[CC_WAITING]  = { 150, 110, 190, "mostly waiting for a CPU" },
	[CC_NATIVE]   = { 205, 120, 150, "native code (--native)" },
};

/* What a node is: its colour class, but for VM-state frames, whose
 * samples say which state they stand for. */
enum node_kind { NK_ROOT, NK_PROCESS, NK_LUA, NK_C, NK_FF, NK_HOST, NK_ZONE, NK_GROUP,
		 NK_VMSTATE, NK_UNKNOWN, NK_NATIVE };

#define NVM (VM_NCLASS + 1)	/* VM classes, plus host samples */

struct node {
	uint32_t label;		/* index in the label table */
	uint32_t parent;
	uint32_t depth;
	enum node_kind kind;
	uint64_t total;		/* samples through this node */
	uint64_t vm[NVM];	/* ... by VM state */
	uint64_t self[NVM];	/* samples ending here, by VM state */
	uint64_t blocked, waiting;	/* off-CPU time through this node */
	uint64_t start;		/* first sample offset in the layout */
	uint32_t first_child, nchildren;	/* range in the children array */
	const struct frame_sym *lua;	/* a Lua function's frame (--jit tooltips) */
	/* Functions a trace inlined without a snapshot, whose time is
	 * counted in this frame (report/inlined_notes.h), or NULL. */
	const char *inlined;
};

struct flame {
	const struct profile *p;
	struct export_opts o;
	struct keytab labels;	/* raw labels */
	struct keytab edges;	/* (parent, label, kind) -> node index - 1 */
	struct node *nodes;	/* nodes[0] is the root, "all" */
	uint32_t n, cap;
	uint32_t *children;
	uint32_t max_depth;
	uint64_t total;
	int height;
	bool used[CC_NCLASS];	/* the classes drawn, for the legend */
};

static enum node_kind node_kind_of(const struct xframe *xf)
{
	switch (xf->kind) {
	case XF_FRAME:
		switch (xf->sym->kind) {
		case SYM_LUA: return NK_LUA;
		case SYM_C: return NK_C;
		case SYM_FF: return NK_FF;
		case SYM_HOST: return NK_HOST;
		case SYM_STATE: return NK_VMSTATE;
		case SYM_UNKNOWN: return NK_UNKNOWN;
		case SYM_NATIVE: return NK_NATIVE;
		}
		return NK_UNKNOWN;
	case XF_COMM:
	case XF_PID: return NK_PROCESS;
	case XF_ZONE: return NK_ZONE;
	case XF_GROUP: return NK_GROUP;
	case XF_HOST: return NK_HOST;
	case XF_VMSTATE: return NK_VMSTATE;
	case XF_TRUNCATED:
	case XF_EMPTY: return NK_UNKNOWN;
	}
	return NK_UNKNOWN;
}

static uint32_t node_new(struct flame *fl, uint32_t parent, uint32_t label,
			 enum node_kind kind)
{
	struct node *nd;

	if (fl->n == fl->cap) {
		fl->cap = fl->cap ? fl->cap * 2 : 256;
		fl->nodes = xrealloc(fl->nodes, fl->cap * sizeof(*fl->nodes));
	}
	nd = &fl->nodes[fl->n];
	memset(nd, 0, sizeof(*nd));
	nd->label = label;
	nd->parent = parent;
	nd->kind = kind;
	nd->depth = fl->n ? fl->nodes[parent].depth + 1 : 0;
	if (nd->depth > fl->max_depth)
		fl->max_depth = nd->depth;
	return fl->n++;
}

static uint32_t node_child(struct flame *fl, uint32_t parent, const char *label,
			   size_t len, enum node_kind kind)
{
	uint32_t key[3];
	bool added;
	uint32_t idx;

	key[0] = parent;
	key[1] = keytab_intern(&fl->labels, label, len, NULL);
	key[2] = kind;
	idx = keytab_intern(&fl->edges, key, sizeof(key), &added);
	/* Edges and nodes are created together: edge i is node i + 1. */
	if (added)
		node_new(fl, parent, key[1], kind);
	return idx + 1;
}

static void node_count(struct node *nd, const struct sample *s, bool leaf)
{
	int vm = s->flags & PSAMPLE_HOST ? VM_NCLASS : (int)vm_class_of(s->vmstate);

	nd->total += s->count;
	nd->vm[vm] += s->count;
	if (s->flags & PSAMPLE_WAITING)
		nd->waiting += s->count;
	else if (s->flags & PSAMPLE_OFFCPU)
		nd->blocked += s->count;
	if (leaf)
		nd->self[vm] += s->count;
}

/* The label drawn: the function's name first ("work main.lua:12"), so
 * that a label cut to fit its frame keeps the name.  Scope 'f' stays
 * jit.p's bare name; anything but a named Lua function is labelled as in
 * every other format. */
static void svg_label(struct strbuf *sb, const struct xframe *xf, const struct profile *p,
		      const struct sample *s, const struct export_opts *o)
{
	const struct frame_sym *f = xf->sym;
	struct frame_sym where;

	if (xf->kind != XF_FRAME || f->kind != SYM_LUA || !f->name || f->firstline == -1 ||
	    o->scope == 'f') {
		xframe_put(sb, xf, p, s, o);
		return;
	}
	where = *f;
	where.name = NULL;
	if (o->scope != 'l')
		where.line = -1;	/* 'l' with no line prints the first line */
	sb_puts(sb, f->name);
	sb_putc(sb, ' ');
	frame_put(sb, &where, 'l', o->pathstrip);
}

static void flame_merge(struct flame *fl)
{
	const struct profile *p = fl->p;
	struct xstack st = { 0 };
	struct strbuf label = STRBUF_INIT;
	unsigned flags = export_process_flags(p, &fl->o);

	node_new(fl, 0, keytab_intern(&fl->labels, "all", 3, NULL), NK_ROOT);
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct sample *s = &p->samples[i];
		uint32_t cur = 0;

		if (!s->count)
			continue;
		int top = s->inlined ? inlined_frame_of(s) : -1;

		xstack_build(&st, s, &fl->o, flags);
		node_count(&fl->nodes[0], s, !st.n);
		for (uint32_t k = 0; k < st.n; k++) {
			sb_reset(&label);
			svg_label(&label, &st.f[k], p, s, &fl->o);
			cur = node_child(fl, cur, sb_str(&label), label.len,
					 node_kind_of(&st.f[k]));
			if (st.f[k].kind == XF_FRAME && st.f[k].sym->kind == SYM_LUA)
				fl->nodes[cur].lua = st.f[k].sym;
			if (top >= 0 && st.f[k].kind == XF_FRAME && st.f[k].sym == s->frames[top] &&
			    !fl->nodes[cur].inlined)
				fl->nodes[cur].inlined = s->inlined;
			node_count(&fl->nodes[cur], s, k + 1 == st.n);
		}
	}
	fl->total = fl->nodes[0].total;
	xstack_free(&st);
	sb_free(&label);
}

static const struct keytab *sort_labels;
static const struct node *sort_nodes;

static int cmp_children(const void *a, const void *b)
{
	const struct node *x = &sort_nodes[*(const uint32_t *)a];
	const struct node *y = &sort_nodes[*(const uint32_t *)b];
	size_t lx = sort_labels->lens[x->label], ly = sort_labels->lens[y->label];
	int c = memcmp(sort_labels->keys[x->label], sort_labels->keys[y->label],
		       lx < ly ? lx : ly);

	if (c)
		return c;
	if (lx != ly)
		return lx < ly ? -1 : 1;
	return (x->kind > y->kind) - (x->kind < y->kind);
}

/* Children in name order, left to right, each starting where the previous
 * sibling ends; a node's own samples take the rest on its right. */
static void flame_layout(struct flame *fl)
{
	uint32_t *fill;

	fl->children = xrealloc(NULL, fl->n * sizeof(*fl->children));
	for (uint32_t i = 1; i < fl->n; i++)
		fl->nodes[fl->nodes[i].parent].nchildren++;
	for (uint32_t i = 0, at = 0; i < fl->n; i++) {
		fl->nodes[i].first_child = at;
		at += fl->nodes[i].nchildren;
	}
	fill = xrealloc(NULL, fl->n * sizeof(*fill));
	for (uint32_t i = 0; i < fl->n; i++)
		fill[i] = fl->nodes[i].first_child;
	for (uint32_t i = 1; i < fl->n; i++)
		fl->children[fill[fl->nodes[i].parent]++] = i;
	free(fill);
	sort_labels = &fl->labels;
	sort_nodes = fl->nodes;
	for (uint32_t i = 0; i < fl->n; i++)
		qsort(fl->children + fl->nodes[i].first_child, fl->nodes[i].nchildren,
		      sizeof(*fl->children), cmp_children);
	/* A parent is always created before its children. */
	for (uint32_t i = 0; i < fl->n; i++) {
		const struct node *nd = &fl->nodes[i];
		uint64_t at = nd->start;

		for (uint32_t k = 0; k < nd->nchildren; k++) {
			struct node *c = &fl->nodes[fl->children[nd->first_child + k]];

			c->start = at;
			at += c->total;
		}
	}
	fl->height = SVG_TOP_PAD + (int)(fl->max_depth + 1) * SVG_FRAME_HEIGHT + SVG_BOTTOM_PAD;
}

/* The VM state that dominates the samples ending in nd (what ran there),
 * or, for a frame with no samples of its own, all samples through it. */
static int node_top_vm(const struct node *nd)
{
	const uint64_t *vm = nd->vm;
	int top = 0;

	for (int i = 0; i < NVM; i++)
		if (nd->self[i])
			vm = nd->self;
	for (int i = 1; i < NVM; i++)
		if (vm[i] > vm[top])
			top = i;
	return top;
}

static enum color_class node_class(const struct node *nd)
{
	static const enum color_class state_class[NVM] = {
		[VM_COMPILED] = CC_COMPILED, [VM_INTERP] = CC_INTERP, [VM_C] = CC_CCODE,
		[VM_GC] = CC_GC, [VM_JIT] = CC_JIT, [VM_NCLASS] = CC_HOST,
	};

	/* Off-CPU and wall profiles: a frame mostly off the CPU says so. */
	if (nd->kind != NK_ROOT && nd->kind != NK_PROCESS) {
		if (2 * nd->waiting > nd->total)
			return CC_WAITING;
		if (2 * (nd->blocked + nd->waiting) > nd->total)
			return CC_BLOCKED;
	}
	switch (nd->kind) {
	case NK_ROOT:
	case NK_PROCESS: return CC_PROCESS;
	case NK_LUA: return CC_LUA;
	case NK_C: return CC_C;
	case NK_FF: return CC_FF;
	case NK_HOST: return CC_HOST;
	case NK_ZONE: return CC_ZONE;
	case NK_GROUP: return CC_GROUP;
	case NK_UNKNOWN: return CC_UNKNOWN;
	case NK_NATIVE: return CC_NATIVE;
	case NK_VMSTATE: break;
	}
	/* Every sample through a state frame is in that state. */
	return state_class[node_top_vm(nd)];
}

static int clamp_channel(int v)
{
	return v < 0 ? 0 : v > 255 ? 255 : v;
}

/* XML text: invalid UTF-8 and the characters XML forbids become U+FFFD,
 * control characters a visible \n, \t or \xNN, bidi and invisible ones
 * \uNNNN (base/textsafe.h), markup characters entities.
 * max > 0 cuts the text to max code points, ending in "..". */
static void put_xml_text(struct strbuf *sb, const char *s, size_t n, size_t max)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t ncp = 0, keep = (size_t)-1;

	if (max) {
		for (size_t i = 0; i < n; ncp++) {
			uint32_t cp;

			i += utf8_next(u + i, n - i, &cp);
		}
		if (ncp > max)
			keep = max - 2;
	}
	ncp = 0;
	for (size_t i = 0; i < n && ncp < keep; ncp++) {
		uint32_t cp;
		size_t len = utf8_next(u + i, n - i, &cp);

		switch (cp) {
		case '&': sb_puts(sb, "&amp;"); break;
		case '<': sb_puts(sb, "&lt;"); break;
		case '>': sb_puts(sb, "&gt;"); break;
		case '"': sb_puts(sb, "&quot;"); break;
		case '\'': sb_puts(sb, "&apos;"); break;
		case '\n': sb_puts(sb, "\\n"); break;
		case '\t': sb_puts(sb, "\\t"); break;
		case 0xfffe:
		case 0xffff: sb_puts(sb, "\xef\xbf\xbd"); break;
		default:
			if (cp <= 0xff && text_cp_unsafe(cp))	/* C0, DEL, C1 */
				sb_printf(sb, "\\x%02x", cp);
			else if (text_cp_unsafe(cp))	/* bidi, invisible */
				sb_printf(sb, "\\u%04x", cp);
			else if (cp == 0xfffd && len == 1)
				sb_puts(sb, "\xef\xbf\xbd");
			else
				sb_putn(sb, s + i, len);
		}
		i += len;
	}
	if (keep != (size_t)-1)
		sb_puts(sb, "..");
}

static double node_x(const struct flame *fl, const struct node *nd)
{
	return SVG_XPAD + (double)nd->start * (SVG_IMAGE_WIDTH - 2 * SVG_XPAD) / (double)fl->total;
}

static double node_width(const struct flame *fl, const struct node *nd)
{
	return (double)nd->total * (SVG_IMAGE_WIDTH - 2 * SVG_XPAD) / (double)fl->total;
}

static int node_y(const struct flame *fl, const struct node *nd)
{
	if (fl->o.icicle)
		return SVG_TOP_PAD + (int)nd->depth * SVG_FRAME_HEIGHT;
	return fl->height - SVG_BOTTOM_PAD - (int)(nd->depth + 1) * SVG_FRAME_HEIGHT;
}

/* --jit: the function's trace abort in the tooltip. */
static void put_jit_abort(struct strbuf *sb, const struct flame *fl, const struct node *nd)
{
	const struct frame_sym *f = nd->lua;
	const struct sample one = { .nframes = 1, .frames = &f };
	const struct jw_abort *a;
	char key[JW_LOC];
	struct strbuf t = STRBUF_INIT;

	if (!fl->o.jit || !nd->lua || view_jit_key(&one, key, sizeof(key)))
		return;
	a = view_jit_abort_of(fl->o.jit, key);
	if (!a)
		return;
	sb_printf(&t, "\ntrace abort: %s -- %s%s%s%s", a->start, a->text, a->at[0] ? " at " : "",
		  a->at, a->blacklisted ? " (blacklisted)" : "");
	put_xml_text(sb, sb_str(&t), t.len, 0);
	sb_free(&t);
}

static void put_node(struct strbuf *sb, const struct flame *fl, const struct node *nd)
{
	const char *label = fl->labels.keys[nd->label];
	size_t len = fl->labels.lens[nd->label];
	enum color_class cc = node_class(nd);
	uint64_t h = hash_bytes(label, len, 0);
	double x = node_x(fl, nd), w = node_width(fl, nd);
	int y = node_y(fl, nd), fit = (int)((w - 6) / SVG_CHAR_WIDTH);
	/* Neighbours differ a little in shade, so frames stay apart. */
	int shade = (int)(h % 31) - 15;
	static const char *const vm_names[NVM] = {
		"compiled", "interpreted", "C code", "GC", "JIT compiler", "host",
	};
	const char *sep = "\n";

	sb_printf(sb, "<g class=\"f\" data-s=\"%llu\" data-n=\"%llu\" data-d=\"%u\"><title>",
		  (unsigned long long)nd->start, (unsigned long long)nd->total, nd->depth);
	put_xml_text(sb, label, len, 0);
	if (profile_unit_ns(fl->p))
		sb_printf(sb, "\n%.3f ms, %.2f%% (blocked %.3f ms, waiting for a CPU %.3f ms)",
			  (double)nd->total / 1e6, 100.0 * (double)nd->total / (double)fl->total,
			  (double)nd->blocked / 1e6, (double)nd->waiting / 1e6);
	else
		sb_printf(sb, "\n%llu sample%s, %.2f%%", (unsigned long long)nd->total,
			  nd->total == 1 ? "" : "s", 100.0 * (double)nd->total / (double)fl->total);
	for (int i = 0; i < NVM; i++) {
		if (!nd->vm[i])
			continue;
		sb_printf(sb, "%s%s %.1f%%", sep, vm_names[i],
			  100.0 * (double)nd->vm[i] / (double)nd->total);
		sep = ", ";
	}
	put_jit_abort(sb, fl, nd);
	if (nd->inlined) {
		struct strbuf t = STRBUF_INIT;

		sb_printf(&t, "\nincludes, inlined without a snapshot: %s", nd->inlined);
		put_xml_text(sb, sb_str(&t), t.len, 0);
		sb_free(&t);
	}
	if (cc == CC_UNKNOWN)
		shade = 0;
	sb_printf(sb, "</title><rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" "
		  "fill=\"rgb(%d,%d,%d)\" rx=\"2\"%s/><text x=\"%.2f\" y=\"%d\">",
		  x, y, w, SVG_FRAME_HEIGHT - 1,
		  clamp_channel(palette[cc].r + shade), clamp_channel(palette[cc].g + shade),
		  clamp_channel(palette[cc].b + shade / 2),
		  cc == CC_UNKNOWN ? " stroke=\"#888\" stroke-dasharray=\"3,2\"" : "",
		  x + 3, y + SVG_FRAME_HEIGHT - 4);
	if (fit >= 3)
		put_xml_text(sb, label, len, (size_t)fit);
	sb_puts(sb, "</text></g>\n");
}

static void put_legend(struct strbuf *sb, const struct flame *fl, int y)
{
	double x = SVG_XPAD;

	for (int i = 0; i < CC_NCLASS; i++) {
		if (!palette[i].legend || !fl->used[i])
			continue;
		sb_printf(sb, "<rect x=\"%.0f\" y=\"%d\" width=\"10\" height=\"10\" "
			  "fill=\"rgb(%d,%d,%d)\"/><text x=\"%.0f\" y=\"%d\">%s</text>\n",
			  x, y - 9, palette[i].r, palette[i].g, palette[i].b, x + 14, y,
			  palette[i].legend);
		x += 14 + 7.5 * (double)strlen(palette[i].legend) + 16;
	}
}

static void put_document(struct strbuf *sb, struct flame *fl)
{
	const char *title = fl->o.title ? fl->o.title :
			    fl->o.icicle ? "Icicle Graph" : "Flame Graph";
	int h = fl->height;

	svg_document_open(sb, h, fl->total);
	sb_printf(sb, "<text id=\"title\" x=\"%d\" y=\"22\">", SVG_IMAGE_WIDTH / 2);
	put_xml_text(sb, title, strlen(title), 0);
	if (fl->p->alloc_every)	/* -e alloc: a sample is alloc_every bytes */
		sb_printf(sb, "</text>\n<text id=\"subtitle\" x=\"%d\" y=\"40\">%.1f MiB "
			  "allocated (%llu samples of %llu KiB)"
			  "; click a frame to zoom, Ctrl-F to search</text>\n", SVG_IMAGE_WIDTH / 2,
			  (double)fl->total * (double)profile_alloc_bytes(fl->p) / 1048576.0,
			  (unsigned long long)fl->total,
			  (unsigned long long)profile_alloc_bytes(fl->p) >> 10);
	else if (profile_unit_ns(fl->p))
		sb_printf(sb, "</text>\n<text id=\"subtitle\" x=\"%d\" y=\"40\">%.3f s of %s time"
			  "; click a frame to zoom, Ctrl-F to search</text>\n", SVG_IMAGE_WIDTH / 2,
			  (double)fl->total / 1e9, fl->p->event == PROFILE_WALL ? "wall" : "off-CPU");
	else
		sb_printf(sb, "</text>\n<text id=\"subtitle\" x=\"%d\" y=\"40\">%llu samples at %u Hz"
			  "; click a frame to zoom, Ctrl-F to search</text>\n",
			  SVG_IMAGE_WIDTH / 2, (unsigned long long)fl->total, fl->p->hz);
	sb_printf(sb, "<text id=\"unzoom\" class=\"button hide\" x=\"%d\" y=\"22\">Reset Zoom</text>\n"
		  "<text id=\"search\" class=\"button\" x=\"%d\" y=\"22\" "
		  "text-anchor=\"end\">Search</text>\n",
		  SVG_XPAD, SVG_IMAGE_WIDTH - SVG_XPAD);
	sb_printf(sb, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n"
		  "<text id=\"matched\" x=\"%d\" y=\"%d\" text-anchor=\"end\"></text>\n",
		  SVG_XPAD, h - SVG_BOTTOM_PAD + SVG_FRAME_HEIGHT + 4, SVG_IMAGE_WIDTH - SVG_XPAD,
		  h - SVG_BOTTOM_PAD + SVG_FRAME_HEIGHT + 4);
	for (uint32_t i = 0; fl->total && i < fl->n; i++)
		if (node_width(fl, &fl->nodes[i]) >= SVG_MIN_WIDTH)
			fl->used[node_class(&fl->nodes[i])] = true;
	put_legend(sb, fl, h - 10);
	if (!fl->total)
		sb_printf(sb, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">No samples collected</text>\n",
			  SVG_IMAGE_WIDTH / 2, SVG_TOP_PAD + SVG_FRAME_HEIGHT);
	for (uint32_t i = 0; fl->total && i < fl->n; i++)
		if (node_width(fl, &fl->nodes[i]) >= SVG_MIN_WIDTH)
			put_node(sb, fl, &fl->nodes[i]);
	sb_puts(sb, "</svg>\n");
}

int export_svg(FILE *out, const struct profile *p, const struct export_opts *opts)
{
	struct flame fl;
	struct strbuf sb = STRBUF_INIT;
	int err = -1;

	memset(&fl, 0, sizeof(fl));
	fl.p = p;
	if (export_opts_norm(&fl.o, opts))
		return -1;
	flame_merge(&fl);
	flame_layout(&fl);
	put_document(&sb, &fl);
	fwrite(sb_str(&sb), 1, sb.len, out);
	err = export_finish(out);
	sb_free(&sb);
	keytab_free(&fl.labels);
	keytab_free(&fl.edges);
	free(fl.nodes);
	free(fl.children);
	return err;
}
