// SPDX-License-Identifier: MIT
/* Unit tests for -e/--event, --min-block, --off-cpu-rate and -e alloc's
 * duty cycle. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "base/unit.h"
#include "cli/options.h"

static struct options opts;

/* Parses "luabpfprof ARGS... -p 1" (argv NULL-terminated). */
static enum options_result parse(const char *a, const char *b, const char *c)
{
	char *argv[8] = { "luabpfprof" };
	int argc = 1;

	for (const char *x[] = { a, b, c }, **p = x; p < x + 3; p++)
		if (*p)
			argv[argc++] = (char *)*p;
	argv[argc++] = "-p";
	argv[argc++] = "1";
	argv[argc] = NULL;
	optind = 0;
	return options_parse_at(argc, argv, &opts, "/nonexistent-proc");
}

int main(void)
{
	CHECK("event: cpu by default", parse(NULL, NULL, NULL) == OPTIONS_OK &&
	      opts.event == PROFILE_CPU && opts.min_block_ns == 10000);
	CHECK("event: -e off-cpu", parse("-e", "off-cpu", NULL) == OPTIONS_OK &&
	      opts.event == PROFILE_OFFCPU);
	CHECK("event: --event wall", parse("--event", "wall", NULL) == OPTIONS_OK &&
	      opts.event == PROFILE_WALL);
	CHECK("event: --event=cpu", parse("--event=cpu", NULL, NULL) == OPTIONS_OK &&
	      opts.event == PROFILE_CPU);
	CHECK("event: unknown refused", parse("-e", "offcpu", NULL) == OPTIONS_ERROR);
	CHECK("event: empty refused", parse("-e", "", NULL) == OPTIONS_ERROR);
	CHECK("event: -e wall with --continuous",
	      parse("--continuous", "--out-dir=/tmp", "-ewall") == OPTIONS_OK &&
	      opts.event == PROFILE_WALL && !opts.event_split);
	CHECK("event: -e alloc not with --continuous",
	      parse("--continuous", "--out-dir=/tmp", "-ealloc") == OPTIONS_ERROR);
	CHECK("event: -e cpu,off-cpu with --continuous collects wall, split",
	      parse("--continuous", "--out-dir=/tmp", "-ecpu,off-cpu") == OPTIONS_OK &&
	      opts.event == PROFILE_WALL && opts.event_split);
	CHECK("event: -e off-cpu,cpu is the same",
	      parse("--continuous", "--out-dir=/tmp", "-eoff-cpu,cpu") == OPTIONS_OK &&
	      opts.event_split);
	CHECK("event: a later -e replaces the list",
	      parse("-ecpu,off-cpu", "-e", "cpu") == OPTIONS_OK && !opts.event_split);
	CHECK("event: -e cpu,off-cpu needs --continuous",
	      parse("-e", "cpu,off-cpu", NULL) == OPTIONS_ERROR);
	CHECK("event: other lists refused",
	      parse("--continuous", "--out-dir=/tmp", "-ecpu,wall") == OPTIONS_ERROR &&
	      parse("--continuous", "--out-dir=/tmp", "-ecpu,cpu") == OPTIONS_ERROR);
	CHECK("min-block: bare number is microseconds",
	      parse("--min-block", "20", NULL) == OPTIONS_OK && opts.min_block_ns == 20000);
	CHECK("min-block: 500ns", parse("--min-block", "500ns", NULL) == OPTIONS_OK &&
	      opts.min_block_ns == 500);
	CHECK("min-block: 2ms", parse("--min-block", "2ms", NULL) == OPTIONS_OK &&
	      opts.min_block_ns == 2000000);
	CHECK("min-block: 0 keeps every block", parse("--min-block", "0", NULL) == OPTIONS_OK &&
	      opts.min_block_ns == 0);
	CHECK("min-block: 1s is the most", parse("--min-block", "1s", NULL) == OPTIONS_OK &&
	      parse("--min-block", "2s", NULL) == OPTIONS_ERROR);
	CHECK("min-block: bad unit refused", parse("--min-block", "5xs", NULL) == OPTIONS_ERROR);
	CHECK("min-block: no number refused", parse("--min-block", "us", NULL) == OPTIONS_ERROR);
	CHECK("min-block: negative refused", parse("--min-block", "-5", NULL) == OPTIONS_ERROR);
	CHECK("min-block: overflow refused",
	      parse("--min-block", "99999999999999999999999", NULL) == OPTIONS_ERROR);
		CHECK("off-cpu-rate: auto by default", parse("-e", "off-cpu", NULL) == OPTIONS_OK &&
	      opts.offcpu_rate == 0);
	CHECK("off-cpu-rate: 0.25", parse("-eoff-cpu", "--off-cpu-rate", "0.25") == OPTIONS_OK &&
	      opts.offcpu_rate == 0.25);
	CHECK("off-cpu-rate: 1/20", parse("-ewall", "--off-cpu-rate", "1/20") == OPTIONS_OK &&
	      opts.offcpu_rate == 0.05);
	CHECK("off-cpu-rate: 1 walks all", parse("-eoff-cpu", "--off-cpu-rate", "1") == OPTIONS_OK &&
	      opts.offcpu_rate == 1);
	CHECK("off-cpu-rate: auto", parse("-eoff-cpu", "--off-cpu-rate", "auto") == OPTIONS_OK &&
	      opts.offcpu_rate == 0);
	CHECK("off-cpu-rate: 0 refused", parse("-eoff-cpu", "--off-cpu-rate", "0") == OPTIONS_ERROR);
	CHECK("off-cpu-rate: 1/0 refused", parse("-eoff-cpu", "--off-cpu-rate", "1/0") == OPTIONS_ERROR);
	CHECK("off-cpu-rate: with -e cpu refused",
	      parse("--off-cpu-rate", "0.5", NULL) == OPTIONS_ERROR);
	CHECK("alloc: 3% of the time, 16 KiB a sample by default",
	      parse("-e", "alloc", NULL) == OPTIONS_OK && opts.alloc_duty == 0.03 &&
	      !opts.alloc_exact && options_alloc_every(&opts) == 16384);
	CHECK("alloc: --alloc-exact, 512 KiB a sample",
	      parse("-ealloc", "--alloc-exact", NULL) == OPTIONS_OK && opts.alloc_exact &&
	      options_alloc_every(&opts) == 512 << 10);
	CHECK("alloc: --alloc-every wins", parse("-ealloc", "--alloc-exact", "--alloc-every=64K") ==
	      OPTIONS_OK && options_alloc_every(&opts) == 64 << 10);
	CHECK("alloc: --alloc-duty 10%", parse("-ealloc", "--alloc-duty", "10%") == OPTIONS_OK &&
	      opts.alloc_duty > 0.0999 && opts.alloc_duty < 0.1001);
	UNIT_EXIT();
}
