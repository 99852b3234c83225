// SPDX-License-Identifier: MIT
/* Unit tests for the `diff` command word: its operands before or after
 * its options, --fail-if checked at parse time, --confidence, the
 * windows, and what goes with diff and what does not. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "base/unit.h"
#include "cli/options.h"

static struct options opts;

/* Parses "luabpfprof ARGS..." (up to six words). */
static enum options_result parse(const char *const *words)
{
	char *argv[10] = { "luabpfprof" };
	int argc = 1;

	for (const char *const *p = words; *p && argc < 9; p++)
		argv[argc++] = (char *)*p;
	argv[argc] = NULL;
	optind = 0;
	return options_parse_at(argc, argv, &opts, "/nonexistent-proc");
}

#define P(...) parse((const char *const[]){ __VA_ARGS__, NULL })

int main(void)
{
	CHECK("diff a b", P("diff", "a", "b") == OPTIONS_OK && opts.diff && opts.ndiff_paths == 2 &&
	      !strcmp(opts.diff_paths[0], "a") && !strcmp(opts.diff_paths[1], "b") &&
	      opts.confidence == 0.99 && !opts.dump && !opts.top);
	CHECK("options after the operands", P("diff", "a", "b", "--fail-if", "F:x.lua:f > +5",
					      "--per-second") == OPTIONS_OK &&
	      opts.nfail_if == 1 && opts.per_second && opts.ndiff_paths == 2 &&
	      !strcmp(opts.diff_paths[1], "b"));
	CHECK("--jp and -o go with diff", P("diff", "--jp", "l", "-o", "d.svg", "a", "b") == OPTIONS_OK &&
	      opts.fmt == FMT_SVG && opts.jp_mode.user_scope == 'l');
	CHECK("a bad rule is refused while parsing", P("diff", "a", "b", "--fail-if", "F:x > 5x") ==
	      OPTIONS_ERROR);
	CHECK("--confidence 0.95", P("diff", "--confidence", "0.95", "a", "b") == OPTIONS_OK &&
	      opts.confidence == 0.95);
	CHECK("--confidence 1 is refused", P("diff", "--confidence", "1", "a", "b") == OPTIONS_ERROR);
	CHECK("one operand is refused", P("diff", "a") == OPTIONS_ERROR);
	CHECK("three operands are refused", P("diff", "a", "b", "c") == OPTIONS_ERROR);
	CHECK("-p with diff is refused", P("diff", "a", "b", "-p", "1") == OPTIONS_ERROR);
	CHECK("-d with diff is refused", P("diff", "a", "b", "-d", "5") == OPTIONS_ERROR);
	CHECK("-f pprof without -o is refused", P("diff", "-f", "pprof", "a", "b") == OPTIONS_ERROR);
	CHECK("-o x.pb.gz: the pair", P("diff", "-o", "x.pb.gz", "a", "b") == OPTIONS_OK &&
	      opts.fmt == FMT_PPROF);
	CHECK("-f speedscope with diff is refused", P("diff", "-f", "speedscope", "a", "b") ==
	      OPTIONS_ERROR);
	CHECK("--fail-if without diff is refused", P("-p", "1", "--fail-if", "total-cpu > +5%") ==
	      OPTIONS_ERROR);
	CHECK("windows: one directory", P("diff", "dir", "--base-window", "100,200", "--new-window",
					  "2026-01-31T12:00:00Z,2026-01-31T13:00:00") == OPTIONS_OK &&
	      opts.window[0][0] == 100000000000ull && opts.window[0][1] == 200000000000ull &&
	      opts.window[1][0] == 1769860800ull * 1000000000ull &&
	      opts.window[1][1] == 1769864400ull * 1000000000ull);
	CHECK("windows need both", P("diff", "dir", "--base-window", "100,200") == OPTIONS_ERROR);
	CHECK("windows take one operand", P("diff", "a", "b", "--base-window", "1,2", "--new-window",
					    "2,3") == OPTIONS_ERROR);
	CHECK("a window ends after it starts", P("diff", "d", "--base-window", "5,5", "--new-window",
						 "5,6") == OPTIONS_ERROR);
	CHECK("diff later on the line is an operand", P("-p", "1", "diff", "a") == OPTIONS_ERROR);
	UNIT_EXIT();
}
