/* SPDX-License-Identifier: MIT */
/* The statistics of `luabpfprof diff`: how sure a change between two
 * profiles is, from their sample counts alone.
 *
 * A key's share is a binomial proportion: a of n samples in BASE, b of m
 * in NEW.  The change b/m - a/n gets Newcombe's hybrid score interval
 * (Newcombe 1998, method 10): a Wilson score interval for each share,
 * combined by the square-and-add rule.  It keeps its coverage for small
 * shares and small counts, where the normal (Wald) interval is too
 * narrow, and never leaves [-1, 1].
 *
 * A profile's total (CPU time) is a Poisson count: a in BASE's ta
 * seconds, b in NEW's tb.  The ratio of the rates gets the log-normal
 * interval exp(log(r) +- z sqrt(1/a + 1/b)). */
#ifndef LBP_DIFF_STATS_H
#define LBP_DIFF_STATS_H

#include <stdbool.h>
#include <stdint.h>

/* The two-sided normal quantile of confidence c (0.95 -> 1.95996). */
double diff_z(double confidence);

/* Wilson's score interval of k successes in n at z. */
void diff_wilson(uint64_t k, uint64_t n, double z, double *lo, double *hi);

struct share_change {
	double pa, pb;		/* the shares in BASE and NEW, 0..1 */
	double d;		/* pb - pa */
	double lo, hi;		/* the interval of d */
	bool significant;	/* the interval excludes 0 */
};

void diff_share(uint64_t a, uint64_t n, uint64_t b, uint64_t m, double z,
		struct share_change *out);

struct rate_change {
	double ratio;		/* (b / tb) / (a / ta) */
	double lo, hi;		/* its interval */
	bool significant;	/* the interval excludes 1 */
};

/* ta, tb: the spans the counts are normalized by (seconds, or 1 for raw
 * totals).  a or b zero: the ratio is infinite or zero, significant only
 * if the other count alone is far from zero (by the rule of three). */
void diff_rate(uint64_t a, double ta, uint64_t b, double tb, double z, struct rate_change *out);

/* How far a change is from no change, for sorting: d over the half of
 * the interval on zero's side (>= 1: significant). */
double diff_share_score(const struct share_change *c);

#endif
