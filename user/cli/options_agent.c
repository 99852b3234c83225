// SPDX-License-Identifier: MIT
/* The continuous mode's value checks (option rows in options.c): push
 * URL and API, service template, labels, header values. */
#include <stdio.h>

#include "base/hook.h"
#include "cli/options_table.h"
#include "cli/optvalue.h"
#include "report/service_name.h"

#define MAX_LABELS	((int)(sizeof(((struct options *)0)->labels) / sizeof(const char *)))

int options_set_push(struct options *o, const struct opt_row *r, const char *arg, char *err,
		    size_t len)
{
	char why[128];

	(void)r;
	if (check_http_url(arg, why, sizeof(why))) {
		snprintf(err, len, "invalid --push URL '%s': %s", arg, why);
		return -1;
	}
	o->push_url = arg;
	return 0;
}

int options_set_push_api(struct options *o, const struct opt_row *r, const char *arg, char *err,
			size_t len)
{
	(void)r;
	if (push_api_parse(arg, &o->push_api_id)) {
		snprintf(err, len, "invalid --push-api '%s': use ingest, push, parca or otlp", arg);
		return -1;
	}
	o->push_api = arg;
	return 0;
}

int options_set_service(struct options *o, const struct opt_row *r, const char *arg, char *err,
		       size_t len)
{
	return service_template_check(arg, err, len) ? -1 : options_set_string(o, r, arg, err, len);
}

/* Checked at start (and again before each run: label_hook_run). */
int options_set_label_from(struct options *o, const struct opt_row *r, const char *arg,
			   char *err, size_t len)
{
	return hook_check(arg, err, len) ? -1 : options_set_string(o, r, arg, err, len);
}

int options_set_label(struct options *o, const struct opt_row *r, const char *arg, char *err,
		     size_t len)
{
	(void)r;
	if (push_label_check(arg, err, len))
		return -1;
	if (o->nlabels == MAX_LABELS) {
		snprintf(err, len, "invalid --label '%s': at most %d labels", arg, MAX_LABELS);
		return -1;
	}
	o->labels[o->nlabels++] = arg;
	return 0;
}

/* A header value: a CR or LF would start a header of its own. */
int options_set_header_value(struct options *o, const struct opt_row *r, const char *arg,
			    char *err, size_t len)
{
	for (const char *p = arg; *p; p++) {
		if ((unsigned char)*p < ' ' || *p == 0x7f) {
			snprintf(err, len, "invalid %s: it contains a control character (0x%02x)",
				 r->display, (unsigned char)*p);
			return -1;
		}
	}
	return options_set_string(o, r, arg, err, len);
}
