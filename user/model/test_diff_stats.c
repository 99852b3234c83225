// SPDX-License-Identifier: MIT
/* The statistics of luabpfprof diff on synthetic counts: known values of
 * the intervals, then resamplings from known shares with a seeded PRNG
 * (the acceptance's ground truth by construction). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/unit.h"
#include "model/diff_gate.h"
#include "model/diff_stats.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static double uniform(void)
{
	/* xorshift64*: plenty for resampling, and the same every run. */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (double)((rng * 0x2545f4914f6cdd1dull) >> 11) / 9007199254740992.0;
}

/* n samples of a profile with three keys of the given shares (the rest
 * is a fourth): counts[0..3]. */
static void draw(uint64_t n, const double share[3], uint64_t counts[4])
{
	counts[0] = counts[1] = counts[2] = counts[3] = 0;
	for (uint64_t i = 0; i < n; i++) {
		double u = uniform();
		int k = u < share[0] ? 0 : u < share[0] + share[1] ? 1 :
			u < share[0] + share[1] + share[2] ? 2 : 3;

		counts[k]++;
	}
}

static bool near(double a, double b, double tol)
{
	return fabs(a - b) <= tol;
}

static void known_values(void)
{
	struct share_change c;
	struct rate_change r;
	double lo, hi;

	CHECK("z of 0.95", near(diff_z(0.95), 1.959964, 1e-6));
	CHECK("z of 0.99", near(diff_z(0.99), 2.575829, 1e-6));
	diff_wilson(5, 10, diff_z(0.95), &lo, &hi);
	CHECK("Wilson 5/10", near(lo, 0.2366, 1e-4) && near(hi, 0.7634, 1e-4));
	diff_wilson(0, 10, diff_z(0.95), &lo, &hi);
	CHECK("Wilson 0/10", lo == 0 && near(hi, 0.2775, 1e-4));
	/* Newcombe (1998), table II, example (a): 56/70 against 48/80 is
	 * +0.2000 with the interval (0.0524, 0.3339). */
	diff_share(48, 80, 56, 70, diff_z(0.95), &c);
	CHECK("Newcombe 56/70 - 48/80", near(c.d, 0.2, 1e-9) && near(c.lo, 0.0524, 1e-4) &&
	      near(c.hi, 0.3339, 1e-4) && c.significant);
	/* Example (d), 0/10 against 0/20: no change, and a wide interval. */
	diff_share(0, 20, 0, 10, diff_z(0.95), &c);
	CHECK("Newcombe 0/10 - 0/20", c.d == 0 && near(c.lo, -0.1611, 1e-4) &&
	      near(c.hi, 0.2775, 1e-4) && !c.significant);
	diff_rate(1000, 10, 1210, 11, diff_z(0.95), &r);
	CHECK("rate: 100/s to 110/s", near(r.ratio, 1.1, 1e-9) && r.lo > 1 && r.hi > r.ratio);
	diff_rate(1000, 10, 1000, 10, diff_z(0.99), &r);
	CHECK("rate: same", near(r.ratio, 1, 1e-12) && !r.significant);
}

/* A function moved from 20% to 30% of the samples, the others scaled
 * (35 + 45 -> 30 + 40, the unchanged one stays 15%).  20000 samples a
 * side (200 s at 99 Hz, or 20 s at 999 Hz) make the change's standard
 * error sqrt(.2*.8/2e4 + .3*.7/2e4) = 0.43 points, so the 2 points of
 * the acceptance are 4.6 standard errors: P(a miss in 100) < 4e-4. */
static void resamplings(void)
{
	const double base[3] = { 0.20, 0.15, 0.30 }, now[3] = { 0.30, 0.15, 0.25 };
	const uint64_t n = 20000;
	double z = diff_z(0.99);
	int within = 0, covered = 0, noise = 0, noise_covered = 0;

	for (int run = 0; run < 100; run++) {
		uint64_t a[4], b[4];
		struct share_change c, u;

		draw(n, base, a);
		draw(n, now, b);
		diff_share(a[0], n, b[0], n, z, &c);
		diff_share(a[1], n, b[1], n, z, &u);
		within += fabs(c.d - 0.10) <= 0.02;
		covered += c.lo <= 0.10 && 0.10 <= c.hi;
		noise += !u.significant;
		noise_covered += u.lo <= 0 && 0 <= u.hi;
	}
	printf("# 100 resamplings: %d within 2 points, %d covered, unchanged: %d noise\n",
	       within, covered, noise);
	CHECK("the change is within 2 points in 100 of 100", within == 100);
	/* Each covers with probability 0.99: P(fewer than 95 of 100) = 6e-4. */
	CHECK("the interval holds the truth in >= 95 of 100", covered >= 95);
	CHECK("the unchanged function is noise in >= 95 of 100", noise >= 95);
	CHECK("noise: its interval holds 0", noise_covered == noise);
}

/* 20 pairs of runs of the same code, two rules at 0.99 (Bonferroni: each
 * at 0.995): none may fail; the changed pair must. */
static void gate(void)
{
	const double same[3] = { 0.20, 0.15, 0.30 }, grown[3] = { 0.30, 0.15, 0.25 };
	struct diff_rule rule, total;
	struct diff_verdict v;
	char err[256];
	double z = diff_z(diff_rule_confidence(0.99, 2));
	int false_fail = 0;

	CHECK("rule parses", !diff_rule_parse("F:app.lua:render > +5", &rule, err, sizeof(err)) &&
	      rule.view == 'F' && !strcmp(rule.key, "app.lua:render") && rule.op == '>' &&
	      rule.threshold == 5 && !rule.relative);
	CHECK("total-cpu parses", !diff_rule_parse("total-cpu > +10%", &total, err, sizeof(err)) &&
	      total.view == 0 && total.relative && total.threshold == 10);
	CHECK("total-cpu needs %", diff_rule_parse("total-cpu > 10", &total, err, sizeof(err)) < 0);
	CHECK("no operator", diff_rule_parse("F:x", &total, err, sizeof(err)) < 0);
	CHECK("bad view", diff_rule_parse("Q:x > 1", &total, err, sizeof(err)) < 0);
	CHECK("bad threshold", diff_rule_parse("F:x > 1x", &total, err, sizeof(err)) < 0);
	diff_rule_parse("total-cpu > +10%", &total, err, sizeof(err));
	for (int pair = 0; pair < 20; pair++) {
		uint64_t a[4], b[4], n = 2000 + 100 * pair;

		draw(n, same, a);
		draw(n, same, b);
		diff_rule_eval_share(&rule, a[0], n, b[0], n, z, &v);
		false_fail += v.broken;
		diff_rule_eval_total(&total, n, 10, n + (uint64_t)(uniform() * 40), 10, z, &v);
		false_fail += v.broken;
	}
	CHECK("20 same-code pairs: no false failure", false_fail == 0);
	{
		uint64_t a[4], b[4], n = 5000;

		draw(n, same, a);
		draw(n, grown, b);
		diff_rule_eval_share(&rule, a[0], n, b[0], n, z, &v);
		CHECK("the grown function breaks its rule", v.broken && v.value > 5);
		diff_rule_parse("F:app.lua:render > +15", &rule, err, sizeof(err));
		diff_rule_eval_share(&rule, a[0], n, b[0], n, z, &v);
		CHECK("beyond the change's size: kept", !v.broken && v.significant);
		diff_rule_eval_total(&total, 1000, 10, 1300, 10, z, &v);
		CHECK("total-cpu +30% breaks", v.broken && near(v.value, 30, 1e-9));
		diff_rule_eval_total(&total, 1000, 10, 1300, 13, z, &v);
		CHECK("total-cpu per second: the same rate", !v.broken);
		/* 12% more of 100 samples is well inside the noise. */
		diff_rule_eval_total(&total, 100, 1, 112, 1, z, &v);
		CHECK("total-cpu: a change inside the noise never fails", !v.broken && !v.significant);
	}
}

int main(void)
{
	known_values();
	resamplings();
	gate();
	UNIT_EXIT();
}
