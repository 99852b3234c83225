/* SPDX-License-Identifier: MIT */
/* The CI gate of `luabpfprof diff`: rules such as
 *   F:app.lua:render > +5      a key's share grew by more than 5 points
 *   f:parse < -10%             a key's share fell by more than 10% of itself
 *   total-cpu > +10%           the profile's total grew by more than 10%
 * A rule is broken only when its change is beyond the threshold and
 * significant in that direction: its interval excludes no change. */
#ifndef LBP_DIFF_GATE_H
#define LBP_DIFF_GATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DIFF_RULE_KEY	256

struct diff_rule {
	const char *text;	/* as given */
	char view;		/* F f l v z, or 0 for total-cpu */
	char key[DIFF_RULE_KEY];
	char op;		/* '>' or '<' */
	double threshold;	/* points, or percent of BASE with relative */
	bool relative;
};

/* 0, or -1 with one line in err.  r->text points at s. */
int diff_rule_parse(const char *s, struct diff_rule *r, char *err, size_t errlen);

/* The confidence each of nrules rules is tested at so that all of them
 * together falsely fail at most 1 - confidence of the time (Bonferroni). */
double diff_rule_confidence(double confidence, int nrules);

struct diff_verdict {
	double value;		/* the change in the rule's unit */
	double lo, hi;		/* its interval, same unit */
	double base, now;	/* BASE's and NEW's share (percent) or rate */
	bool significant;	/* in the rule's direction */
	bool broken;
};

/* A key's rule: a of n in BASE, b of m in NEW. */
void diff_rule_eval_share(const struct diff_rule *r, uint64_t a, uint64_t n, uint64_t b,
			  uint64_t m, double z, struct diff_verdict *v);

/* total-cpu: a in span ta, b in tb (seconds with --per-second, else 1). */
void diff_rule_eval_total(const struct diff_rule *r, uint64_t a, double ta, uint64_t b,
			  double tb, double z, struct diff_verdict *v);

#endif
