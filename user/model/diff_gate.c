// SPDX-License-Identifier: MIT
/* Parsing and judging the gate's rules (see diff_gate.h). */
#include "model/diff_gate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/diff_stats.h"

static void trim(const char **s, size_t *n)
{
	while (*n && (**s == ' ' || **s == '\t'))
		(*s)++, (*n)--;
	while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t'))
		(*n)--;
}

static int parse_threshold(const char *s, struct diff_rule *r, char *err, size_t errlen)
{
	size_t n = strlen(s);
	char num[64], *end;

	trim(&s, &n);
	r->relative = n && s[n - 1] == '%';
	if (r->relative)
		n--;
	if (!n || n >= sizeof(num))
		goto bad;
	memcpy(num, s, n);
	num[n] = '\0';
	r->threshold = strtod(num, &end);
	if (*end || !isfinite(r->threshold))
		goto bad;
	return 0;
bad:
	snprintf(err, errlen, "--fail-if '%s': the threshold is a number of points (+5) or percent of BASE (+10%%)",
		 r->text);
	return -1;
}

int diff_rule_parse(const char *s, struct diff_rule *r, char *err, size_t errlen)
{
	const char *op = strrchr(s, '>'), *lt = strrchr(s, '<'), *key = s;
	size_t n;

	memset(r, 0, sizeof(*r));
	r->text = s;
	if (!op || (lt && lt > op))
		op = lt;
	if (!op) {
		snprintf(err, errlen, "--fail-if '%s': expected KEY > +N, KEY < -N or total-cpu > +N%%", s);
		return -1;
	}
	r->op = *op;
	n = (size_t)(op - s);
	trim(&key, &n);
	if (n == 9 && !strncmp(key, "total-cpu", 9)) {
		r->view = 0;
	} else if (n > 2 && key[1] == ':' && strchr("fFlvz", key[0]) && n - 2 < DIFF_RULE_KEY) {
		r->view = key[0];
		memcpy(r->key, key + 2, n - 2);
	} else {
		snprintf(err, errlen, "--fail-if '%s': the key is total-cpu or a view letter (f F l v z), ':' and a key, as F:app.lua:render", s);
		return -1;
	}
	if (parse_threshold(op + 1, r, err, errlen))
		return -1;
	if (!r->view && !r->relative) {
		snprintf(err, errlen, "--fail-if '%s': total-cpu's threshold is relative, in percent (+10%%)", s);
		return -1;
	}
	return 0;
}

double diff_rule_confidence(double confidence, int nrules)
{
	return nrules > 1 ? 1 - (1 - confidence) / nrules : confidence;
}

static void judge(const struct diff_rule *r, struct diff_verdict *v)
{
	v->significant = r->op == '>' ? v->lo > 0 : v->hi < 0;
	v->broken = v->significant && (r->op == '>' ? v->value > r->threshold :
				       v->value < r->threshold);
}

void diff_rule_eval_share(const struct diff_rule *r, uint64_t a, uint64_t n, uint64_t b,
			  uint64_t m, double z, struct diff_verdict *v)
{
	struct share_change c;
	double unit;

	diff_share(a, n, b, m, z, &c);
	/* Relative: the change over BASE's share, in percent; a key BASE
	 * never saw grew without bound. */
	unit = r->relative ? (c.pa > 0 ? 100 / c.pa : HUGE_VAL) : 100;
	v->base = 100 * c.pa;
	v->now = 100 * c.pb;
	v->value = c.d ? c.d * unit : 0;
	v->lo = c.lo ? c.lo * unit : 0;
	v->hi = c.hi ? c.hi * unit : 0;
	judge(r, v);
}

void diff_rule_eval_total(const struct diff_rule *r, uint64_t a, double ta, uint64_t b,
			  double tb, double z, struct diff_verdict *v)
{
	struct rate_change c;

	diff_rate(a, ta, b, tb, z, &c);
	v->base = ta > 0 ? (double)a / ta : 0;
	v->now = tb > 0 ? (double)b / tb : 0;
	v->value = 100 * (c.ratio - 1);
	v->lo = 100 * (c.lo - 1);
	v->hi = 100 * (c.hi - 1);
	judge(r, v);
}
