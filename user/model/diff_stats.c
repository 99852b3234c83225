// SPDX-License-Identifier: MIT
/* Intervals for changes of shares and rates (see diff_stats.h). */
#include "model/diff_stats.h"

#include <math.h>

double diff_z(double confidence)
{
	/* Bisection on erfc: 60 halvings of [0, 40] are exact to double
	 * precision, and this runs once per diff. */
	double tail = 1 - confidence, lo = 0, hi = 40;

	if (!(tail > 0 && tail < 1))
		return 0;
	for (int i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;

		if (erfc(mid / M_SQRT2) > tail)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

void diff_wilson(uint64_t k, uint64_t n, double z, double *lo, double *hi)
{
	double p, z2, denom, centre, half;

	if (!n) {
		*lo = 0;
		*hi = 1;
		return;
	}
	p = (double)k / (double)n;
	z2 = z * z;
	denom = 1 + z2 / (double)n;
	centre = (p + z2 / (2.0 * (double)n)) / denom;
	half = z / denom * sqrt(p * (1 - p) / (double)n + z2 / (4.0 * (double)n * (double)n));
	*lo = centre - half < 0 ? 0 : centre - half;
	*hi = centre + half > 1 ? 1 : centre + half;
	/* The score interval holds p itself, rounding aside. */
	if (*lo > p)
		*lo = p;
	if (*hi < p)
		*hi = p;
}

void diff_share(uint64_t a, uint64_t n, uint64_t b, uint64_t m, double z,
		struct share_change *out)
{
	double l1, u1, l2, u2;

	out->pa = n ? (double)a / (double)n : 0;
	out->pb = m ? (double)b / (double)m : 0;
	out->d = out->pb - out->pa;
	diff_wilson(a, n, z, &l1, &u1);
	diff_wilson(b, m, z, &l2, &u2);
	out->lo = out->d - sqrt((out->pb - l2) * (out->pb - l2) + (u1 - out->pa) * (u1 - out->pa));
	out->hi = out->d + sqrt((u2 - out->pb) * (u2 - out->pb) + (out->pa - l1) * (out->pa - l1));
	out->significant = out->lo > 0 || out->hi < 0;
}

double diff_share_score(const struct share_change *c)
{
	double half = c->d >= 0 ? c->d - c->lo : c->hi - c->d;

	if (half <= 0)
		return c->d ? HUGE_VAL : 0;
	return fabs(c->d) / half;
}

void diff_rate(uint64_t a, double ta, uint64_t b, double tb, double z, struct rate_change *out)
{
	double ra = ta > 0 ? (double)a / ta : 0, rb = tb > 0 ? (double)b / tb : 0, se;

	if (!a || !b) {
		/* One side saw nothing: the other's count must pass what a
		 * Poisson count of zero allows at z (about z^2 / 2 + ...):
		 * -ln(tail) is the bound on a mean with P(0) = tail. */
		double tail = erfc(z / M_SQRT2) / 2, bound = -log(tail);

		out->ratio = !a && !b ? 1 : !a ? HUGE_VAL : 0;
		out->lo = !a && b > bound ? 1 + 1e-9 : 0;
		out->hi = !b && a > bound ? 1 - 1e-9 : HUGE_VAL;
		out->significant = out->lo > 1 || out->hi < 1;
		return;
	}
	out->ratio = rb / ra;
	se = sqrt(1.0 / (double)a + 1.0 / (double)b);
	out->lo = out->ratio * exp(-z * se);
	out->hi = out->ratio * exp(z * se);
	out->significant = out->lo > 1 || out->hi < 1;
}
