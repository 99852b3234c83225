// SPDX-License-Identifier: MIT
/* Unit tests for the `top` command word and --delay. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "base/unit.h"
#include "cli/options.h"

static struct options opts;

/* Parses "luabpfprof ARGS..." (up to four words). */
static enum options_result parse(const char *a, const char *b, const char *c, const char *d)
{
	char *argv[8] = { "luabpfprof" };
	int argc = 1;

	for (const char *x[] = { a, b, c, d }, **p = x; p < x + 4; p++)
		if (*p)
			argv[argc++] = (char *)*p;
	argv[argc] = NULL;
	optind = 0;
	return options_parse_at(argc, argv, &opts, "/nonexistent-proc");
}

int main(void)
{
	CHECK("top -p 1: top, 1 s", parse("top", "-p", "1", NULL) == OPTIONS_OK && opts.top &&
	      opts.top_delay == 1.0 && opts.npids == 1);
	CHECK("no top word: a report", parse("-p", "1", NULL, NULL) == OPTIONS_OK && !opts.top);
	CHECK("top --delay 500ms", parse("top", "--delay", "500ms", "-a") == OPTIONS_OK &&
	      opts.top && opts.all && opts.top_delay == 0.5);
	CHECK("top -e off-cpu", parse("top", "-eoff-cpu", "-p", "1") == OPTIONS_OK &&
	      opts.event == PROFILE_OFFCPU);
	CHECK("top -- COMMAND", parse("top", "--", "luajit", NULL) == OPTIONS_OK && opts.top &&
	      opts.command && !strcmp(opts.command[0], "luajit"));
	CHECK("top needs a target", parse("top", NULL, NULL, NULL) == OPTIONS_ERROR);
	CHECK("top --delay 50ms: too short", parse("top", "--delay", "50ms", "-a") == OPTIONS_ERROR);
	CHECK("top -o: refused", parse("top", "-o", "x.svg", "-a") == OPTIONS_ERROR);
	CHECK("top --jit: refused", parse("top", "--jit", "-a", NULL) == OPTIONS_ERROR);
	CHECK("top --continuous: refused",
	      parse("top", "--continuous", "--out-dir=/tmp", "-a") == OPTIONS_ERROR);
	CHECK("--delay without top: refused", parse("--delay", "2", "-p", "1") == OPTIONS_ERROR);
	CHECK("top later on the line is an operand", parse("-p", "1", "top", NULL) == OPTIONS_ERROR);
	UNIT_EXIT();
}
