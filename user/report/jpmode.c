// SPDX-License-Identifier: MIT
/* luajit -jp mode parsing, step for step in jit/p.lua prof_start's order:
 * interval, threshold, depth, then the letter set (jit/p.lua prof_start). */
#include "report/jpmode.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define JP_MAX_DEPTH	100000
#define JP_MAX_INTERVAL	60000	/* ms */

static void set_err(char *err, size_t errlen, const char *mode, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void set_err(char *err, size_t errlen, const char *mode, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!err || !errlen)
		return;
	n = snprintf(err, errlen, "invalid --jp mode \"%s\": ", mode);
	if (n < 0 || (size_t)n >= errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
}

/* Reads the digits at *pp into *val; false on overflow past limit. */
static bool read_number(const char **pp, long *val, long limit)
{
	const char *p = *pp;
	long v = 0;
	bool ok = true;

	for (; isdigit((unsigned char)*p); p++) {
		if (ok && v <= limit)
			v = v * 10 + (*p - '0');
		if (v > limit)
			ok = false;
	}
	*pp = p;
	*val = v;
	return ok;
}

/* Lua's mode:find(pattern) for "[<a>].*[<b>]": a letter of set a followed,
 * anywhere later, by a letter of set b. */
static bool find_pair(const char *s, const char *a, const char *b)
{
	const char *first = strpbrk(s, a);

	return first && strpbrk(first + 1, b);
}

static void describe_char(char *buf, size_t len, char c)
{
	if (isprint((unsigned char)c))
		snprintf(buf, len, "'%c'", c);
	else
		snprintf(buf, len, "'\\x%02x'", (unsigned char)c);
}

/* 1. "i%d*": the sampling interval, removed first.  Copies the rest of mode
 * into rest (at least strlen(mode) + 1 bytes). */
static int strip_interval(const char *mode, char *rest, struct jp_mode *out,
			  char *err, size_t errlen)
{
	const char *p;
	size_t n = 0;
	long val;

	for (p = mode; *p; ) {
		if (*p != 'i') {
			rest[n++] = *p++;
			continue;
		}
		p++;
		if (!isdigit((unsigned char)*p)) {
			set_err(err, errlen, mode, "'i' needs a number of milliseconds, e.g. i5");
			return -1;
		}
		if (!read_number(&p, &val, JP_MAX_INTERVAL) || val == 0) {
			set_err(err, errlen, mode, "interval must be 1..%d ms", JP_MAX_INTERVAL);
			return -1;
		}
		out->interval_ms = (unsigned)val;
	}
	rest[n] = '\0';
	return 0;
}

/* 2. "m(%d+)": the percentage threshold, removed from rest in place. */
static int strip_threshold(const char *mode, char *rest, struct jp_mode *out,
			   char *err, size_t errlen)
{
	const char *p;
	size_t n = 0;
	long val;

	for (p = rest; *p; ) {
		if (*p != 'm' || !isdigit((unsigned char)p[1])) {
			if (*p == 'm') {
				set_err(err, errlen, mode, "'m' needs a percentage, e.g. m1");
				return -1;
			}
			rest[n++] = *p++;
			continue;
		}
		p++;
		if (!read_number(&p, &val, 100)) {
			set_err(err, errlen, mode, "threshold m must be 0..100");
			return -1;
		}
		out->min = (int)val;
	}
	rest[n] = '\0';
	return 0;
}

/* 3. "%-?%d+": the depth, the last one wins; removed from rest in place. */
static int strip_depth(const char *mode, char *rest, long *depth, char *err, size_t errlen)
{
	const char *p;
	size_t n = 0;
	long val;
	int sign;

	for (p = rest; *p; ) {
		sign = 1;
		if (*p == '-' && isdigit((unsigned char)p[1])) {
			sign = -1;
			p++;
		} else if (!isdigit((unsigned char)*p)) {
			rest[n++] = *p++;
			continue;
		}
		if (!read_number(&p, &val, JP_MAX_DEPTH) || val == 0) {
			set_err(err, errlen, mode, "depth must be 1..%d or -1..-%d",
				JP_MAX_DEPTH, JP_MAX_DEPTH);
			return -1;
		}
		*depth = sign * val;
	}
	rest[n] = '\0';
	return 0;
}

/* 4. What is left is a set of letters. */
static int letter_set(const char *mode, const char *rest, char set[128], char *err,
		      size_t errlen)
{
	char what[16];

	for (const char *p = rest; *p; p++) {
		if (!strchr("fFlpvzrsaAG-", *p)) {
			describe_char(what, sizeof(what), *p);
			set_err(err, errlen, mode, "unknown letter %s", what);
			return -1;
		}
		set[(unsigned char)*p] = 1;
	}
	return 0;
}

/* 5. Scope, split, depth and the dumpstack format, as prof_start derives
 * them from the letters. */
static void derive(const char *rest, const char set[128], long depth, bool defaulted,
		   struct jp_mode *out)
{
	out->states = set['z'] ? 'z' : set['v'] ? 'v' : 0;
	/* jit.p's default "f" is no letter given: the tree and the exporters
	 * keep their own default (F) then. */
	out->user_scope = defaulted ? 0 : set['l'] ? 'l' : set['f'] ? 'f' : set['F'] ? 'F' : 0;
	out->scope = out->user_scope ? out->user_scope : out->states ? 0 : 'f';
	out->full_path = set['p'];
	out->raw = set['r'];

	if (set['s']) {
		out->split = JP_SPLIT_STACK;
		if (depth == -1 || set['-'])
			depth = -2;
		else if (depth == 1)
			depth = 2;
	} else if (find_pair(rest, "fF", "l")) {
		out->scope = 'l';
		out->split = JP_SPLIT_LINE;
	} else if (!out->scope || find_pair(rest, "zv", "lfF")) {
		out->split = JP_SPLIT_STATE;
	} else {
		out->split = JP_SPLIT_NONE;
	}
	out->depth = (int)depth;

	out->ann = set['A'] ? 0 : set['a'] ? 3 : JP_ANN_NONE;
	if (out->ann != JP_ANN_NONE) {
		out->scope = 'l';
		strcpy(out->fmt, "pl");
		out->has_fmt = true;
		out->split = JP_SPLIT_NONE;
		out->depth = 1;
	} else if (set['G'] && out->scope) {
		snprintf(out->fmt, sizeof(out->fmt), "%s%cZ;",
			 out->full_path ? "p" : "", out->scope);
		out->has_fmt = true;
		out->depth = -100;
		out->graph = true;
		out->min = 0;
	} else if (out->scope) {
		char sc = out->split == JP_SPLIT_LINE && set['f'] ? 'f' :
			  set['F'] ? 'F' : out->scope;

		snprintf(out->fmt, sizeof(out->fmt), "%s%cZ %c ",
			 out->full_path ? "p" : "", sc, out->depth >= 0 ? '<' : '>');
		out->has_fmt = true;
	}
}

int jp_mode_parse(const char *mode, struct jp_mode *out, char *err, size_t errlen)
{
	char rest[256], set[128] = { 0 };
	long depth = 1;
	bool defaulted = !mode || !*mode;

	if (defaulted)
		mode = "f";
	if (strlen(mode) >= sizeof(rest)) {
		set_err(err, errlen, "...", "mode is too long");
		return -1;
	}
	memset(out, 0, sizeof(*out));
	out->min = 3;
	out->ann = JP_ANN_NONE;
	if (strip_interval(mode, rest, out, err, errlen) ||
	    strip_threshold(mode, rest, out, err, errlen) ||
	    strip_depth(mode, rest, &depth, err, errlen) ||
	    letter_set(mode, rest, set, err, errlen))
		return -1;
	derive(rest, set, depth, defaulted, out);
	return 0;
}
