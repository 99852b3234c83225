/* SPDX-License-Identifier: MIT */
/* The keys of a diff: each sample of BASE and NEW counted under its --jp
 * view key (the leaf's 'F', 'f' or 'l' name, or its 'v' VM state or 'z'
 * zone, as jit.p keys its default views), then each key's change with
 * its interval (model/diff_stats.h), sorted by significance. */
#ifndef LBP_DIFF_KEYS_H
#define LBP_DIFF_KEYS_H

#include <stdbool.h>
#include <stdint.h>

#include "model/diff_stats.h"
#include "model/stackset.h"
#include "model/strtab.h"

enum diff_side { DIFF_BASE, DIFF_NEW };

struct diff_row {
	uint32_t key;			/* in diff_table.keys */
	uint64_t count[2];		/* BASE, NEW */
	struct share_change c;
	double score;			/* diff_share_score */
};

struct diff_table {
	char view;			/* F f l v z */
	struct strtab keys;
	struct diff_row *rows;
	uint32_t nrows, cap;
	uint64_t total[2];
	/* What a count is divided by: the side's total (shares, the
	 * default), or the samples its duration could hold (--per-second:
	 * shares of one CPU). */
	double span[2];
};

/* The SS_HAS_* bits view needs; 0 for F and f. */
unsigned diff_view_needs(char view);

void diff_table_init(struct diff_table *t, char view);
void diff_table_free(struct diff_table *t);

/* Counts every sample of s for side. */
void diff_table_count(struct diff_table *t, const struct stackset *s, enum diff_side side);

/* Computes every row's change at z, each side's counts divided by
 * span[side] (0: by its total), and sorts the rows: significant first,
 * then by score, then by key. */
void diff_table_finish(struct diff_table *t, double z, const double span[2]);

/* The row of key, or NULL when neither side has it. */
const struct diff_row *diff_table_find(const struct diff_table *t, const char *key);

const char *diff_row_key(const struct diff_table *t, const struct diff_row *r);

#endif
