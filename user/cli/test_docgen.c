// SPDX-License-Identifier: MIT
/* The option table's choices, which the man page and the completions
 * offer, are each accepted by the row's validator; and the generated page
 * and scripts name every option. */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/unit.h"
#include "cli/docgen.h"
#include "cli/options.h"
#include "cli/options_table.h"

/* Parses "luabpfprof --NAME=VALUE -p 1 [--continuous --out-dir /tmp]". */
static enum options_result parse_value(const struct opt_row *r, const char *value)
{
	char opt[128];
	char *argv[8] = { "luabpfprof", opt, "-p", "1" };
	int argc = 4;
	struct options o;

	snprintf(opt, sizeof(opt), "--%s=%s", r->name, value);
	if ((r->flags & OPTF_CONTINUOUS) || !strcmp(value, "cpu,off-cpu")) {
		argv[argc++] = "--continuous";
		argv[argc++] = "--out-dir=/tmp";
	}
	argv[argc] = NULL;
	optind = 0;
	return options_parse_at(argc, argv, &o, "/nonexistent-proc");
}

static void choices_accepted(void)
{
	int rows = 0;

	for (int i = 0; i < options_nrows; i++) {
		const struct opt_row *r = &options_rows[i];
		char *copy, *save = NULL, name[160];
		bool all = true;

		if (!r->choices)
			continue;
		rows++;
		copy = strdup(r->choices);
		for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save))
			if (parse_value(r, w) != OPTIONS_OK) {
				printf("  --%s refuses its choice '%s'\n", r->name, w);
				all = false;
			}
		free(copy);
		snprintf(name, sizeof(name), "choices of --%s accepted: %s", r->name, r->choices);
		CHECK(name, all);
	}
	CHECK("rows with choices: -e, -f, --jp, --tree, --push-api", rows == 5);
	CHECK("a value not in -e's choices is refused",
	      parse_value(docgen_row("event"), "offcpu") == OPTIONS_ERROR);
}

/* out: what emit wrote, NUL-terminated (caller frees). */
static char *generated(int (*emit)(FILE *f), int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	*rc = emit(f);
	fclose(f);
	return buf;
}

/* --NAME as an output spells it: the man page in bold, every minus escaped. */
static void spelling(char *out, size_t len, const char *name, bool man)
{
	size_t n = (size_t)snprintf(out, len, "%s", man ? "\\fB\\-\\-" : "--");

	for (const char *p = name; *p && n + 3 < len; p++) {
		if (man && *p == '-')
			out[n++] = '\\';
		out[n++] = *p;
	}
	out[n] = '\0';
}

static void every_option_named(void)
{
	static const struct {
		const char *what;
		int (*emit)(FILE *f);
	} outs[] = { { "man page", docgen_man }, { "bash", docgen_bash }, { "zsh", docgen_zsh } };

	for (size_t k = 0; k < sizeof(outs) / sizeof(outs[0]); k++) {
		int rc, missing = 0;
		char *text = generated(outs[k].emit, &rc), name[160];

		for (int i = 0; i < options_nrows; i++) {
			spelling(name, sizeof(name), options_rows[i].name, k == 0);
			if (!strstr(text, name)) {
				printf("  %s: no %s\n", outs[k].what, name);
				missing++;
			}
		}
		snprintf(name, sizeof(name), "%s: generated, names all %d options", outs[k].what,
			 options_nrows);
		CHECK(name, rc == 0 && missing == 0);
		free(text);
	}
}

int main(void)
{
	choices_accepted();
	every_option_named();
	UNIT_EXIT();
}
