// SPDX-License-Identifier: MIT
/* `luabpfprof diff`'s options: --fail-if rules (checked by the gate's own
 * parser, so a bad rule is refused before any file is read),
 * --confidence, the windows of a --continuous directory, and which
 * options go with diff and which do not. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "cli/options_table.h"
#include "model/diff_gate.h"

int options_set_fail_if(struct options *o, const struct opt_row *r, const char *arg, char *err,
			size_t errlen)
{
	struct diff_rule rule;

	(void)r;
	if (o->nfail_if == OPTIONS_MAX_RULES) {
		snprintf(err, errlen, "at most %d --fail-if rules", OPTIONS_MAX_RULES);
		return -1;
	}
	if (diff_rule_parse(arg, &rule, err, errlen))
		return -1;
	o->fail_if[o->nfail_if++] = arg;
	return 0;
}

int options_set_confidence(struct options *o, const struct opt_row *r, const char *arg,
			   char *err, size_t errlen)
{
	char *end;
	double v = strtod(arg, &end);

	(void)r;
	if (!*arg || *end || !(v >= 0.5 && v <= 0.999999)) {
		snprintf(err, errlen, "invalid --confidence '%s': expected 0.5 to 0.999999 (0.99, 0.95)",
			 arg);
		return -1;
	}
	o->confidence = v;
	return 0;
}

/* A time: Unix seconds, or UTC as 2026-01-31T12:00:00 (a trailing Z is
 * allowed). */
static int parse_time(const char *s, size_t n, unsigned long long *ns)
{
	char buf[40], *end;
	struct tm tm;
	double secs;

	if (!n || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	secs = strtod(buf, &end);
	if (end != buf && !*end && secs >= 0 && secs < 1e10) {
		*ns = (unsigned long long)(secs * 1e9);
		return 0;
	}
	memset(&tm, 0, sizeof(tm));
	end = strptime(buf, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!end || (*end && strcmp(end, "Z")))
		return -1;
	*ns = (unsigned long long)timegm(&tm) * 1000000000ull;
	return 0;
}

int options_set_window(struct options *o, const struct opt_row *r, const char *arg, char *err,
		       size_t errlen)
{
	const char *comma = strchr(arg, ',');
	unsigned long long *w = o->window[!strcmp(r->name, "new-window")];

	if (!comma || parse_time(arg, (size_t)(comma - arg), &w[0]) ||
	    parse_time(comma + 1, strlen(comma + 1), &w[1]) || w[1] <= w[0]) {
		snprintf(err, errlen, "invalid %s '%s': expected FROM,TO, each UTC "
			 "2026-01-31T12:00:00 or Unix seconds, FROM before TO", r->display, arg);
		return -1;
	}
	return 0;
}

static bool diff_only(const char *name)
{
	static const char *const rows[] = {
		"fail-if", "confidence", "per-second", "base-window", "new-window",
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (!strcmp(name, rows[i]))
			return true;
	return false;
}

/* What diff takes besides its own: where it writes and the view. */
static bool diff_takes(const char *name)
{
	return diff_only(name) || !strcmp(name, "output") || !strcmp(name, "format") ||
	       !strcmp(name, "jp") || !strcmp(name, "verbose");
}

static int check_operands(const struct options *o)
{
	bool windows = o->window[0][1] || o->window[1][1];

	if (windows && (!o->window[0][1] || !o->window[1][1] || o->ndiff_paths != 1)) {
		log_error("diff with windows takes one --continuous directory and both --base-window and --new-window");
		return -1;
	}
	if (!windows && o->ndiff_paths != 2) {
		log_error("diff compares two profiles: luabpfprof diff BASE NEW (files or directories)");
		return -1;
	}
	if (o->fmt != FMT_TEXT && o->fmt != FMT_FOLDED && o->fmt != FMT_SVG && o->fmt != FMT_PPROF) {
		log_error("diff writes text, folded (difffolded's 'stack BASE NEW'), svg (a differential flame graph) or pprof (the pair for go tool pprof -diff_base)");
		return -1;
	}
	if (o->fmt == FMT_PPROF && !o->output) {
		log_error("diff -f pprof writes two files: give -o NEW.pb.gz (BASE goes to NEW.base.pb.gz)");
		return -1;
	}
	return 0;
}

int options_check_diff(const struct options *o, const bool *given)
{
	for (int i = 0; i < options_nrows; i++) {
		const char *name = options_rows[i].name;

		if (!given[i])
			continue;
		if (!o->diff && diff_only(name)) {
			log_error("%s goes with diff: luabpfprof diff BASE NEW %s ...",
				  options_rows[i].display, options_rows[i].display);
			return -1;
		}
		if (o->diff && !diff_takes(name)) {
			log_error("diff reads two profiles: give it without %s", options_rows[i].display);
			return -1;
		}
	}
	if (o->diff && (o->npids || o->all || o->command)) {
		log_error("diff reads two profiles: give it without -p, -a or a command");
		return -1;
	}
	return o->diff ? check_operands(o) : 0;
}
