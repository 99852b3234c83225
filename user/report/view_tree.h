/* SPDX-License-Identifier: MIT */
/* The call tree view (--tree, --tree=self): callers at the left, callees
 * indented below them, each node with its total (inclusive) and self
 * share.  Layout and options are described in docs/views.md. */
#ifndef LBP_VIEW_TREE_H
#define LBP_VIEW_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report/jpmode.h"
#include "model/profile.h"

enum tree_sort {
	TREE_SORT_TOTAL,	/* --tree: siblings by inclusive samples */
	TREE_SORT_SELF,		/* --tree=self: siblings by self samples */
};

struct view_tree_opts {
	enum tree_sort sort;
	int max_depth;		/* levels shown, the roots being level 1; 0 = all */
	const char *focus;	/* root at this function, NULL = whole tree */
	int min;		/* hide nodes whose rounded total % is below */
	char scope;		/* frame labels: 'F' (default), 'f' or 'l' */
	bool full_path;		/* 'p': keep the directories of chunk names */
	bool per_thread;	/* one section per thread (--per-thread) */
	bool per_process;	/* one per process, not per program (--per-process) */
};

/* Defaults: sort by total, no depth limit, no focus, min 3, scope 'F'. */
void view_tree_opts_init(struct view_tree_opts *o);

/* Takes the threshold, the f/F/l letter (if one was given) and 'p' from a
 * parsed -jp mode. */
void view_tree_opts_from_jp(struct view_tree_opts *o, const struct jp_mode *m);

/* The value of --tree[=WHAT]: NULL or "" or "total" sorts by total,
 * "self" by self.  Returns 0, or -1 with a one-line message in err. */
int view_tree_parse_arg(const char *arg, struct view_tree_opts *o, char *err, size_t errlen);

/* Writes the tree; one section per process, as the jit.p view does.
 * Returns 0, or -1 when writing to out failed. */
int view_tree_write(FILE *out, const struct profile *p, const struct view_tree_opts *o);

#endif
