// SPDX-License-Identifier: MIT
/* Parsing a command line with the option table (cli/options.c): the
 * subcommand's word, getopt_long's tables built from the rows, each row's
 * validator, then the checks of combinations. */
#define _GNU_SOURCE
#include "cli/options.h"

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "cli/options_table.h"
#include "cli/optvalue.h"
#include "report/view_tree.h"

/* -- Parsing --------------------------------------------------------------- */

static void set_defaults(struct options *o)
{
	char err[64];

	memset(o, 0, sizeof(*o));
	o->hz = 99;
	o->min_block_ns = 10000;
	o->jp = "";
	jp_mode_parse("", &o->jp_mode, err, sizeof(err));
	o->fmt = FMT_TEXT;
	o->max_stacks = 4096;
	o->max_counts = 16384;
	o->max_frames = 256;
	o->every = 10;
	o->alloc_every = 0;	/* options_alloc_every */
	o->alloc_duty = LBP_ALLOC_DUTY;
	o->offcpu_rate = LBP_OFFCPU_RATE;
	o->retain_count = 100;
	o->push_api = "ingest";
	o->push_api_id = PUSH_API_INGEST;
	o->spool_bytes = 64ull << 20;
	o->jit_hot = 1.0;
	o->fail_interp = -1;
	o->top_delay = 1;
	o->confidence = 0.99;
}

/* getopt_long's tables: a row's long option returns 256 + its index, its
 * letter the letter. */
static void build_getopt(struct option *longopts, char *shortopts)
{
	char *s = shortopts;
	int i;

	*s++ = '+';	/* stop at the first operand: a command follows -- */
	*s++ = ':';	/* ':' for a missing value, not '?' */
	for (i = 0; i < options_nrows; i++) {
		const struct opt_row *r = &options_rows[i];

		longopts[i] = (struct option){ r->name, r->arg, NULL, 256 + i };
		if (r->letter) {
			*s++ = r->letter;
			if (r->arg == required_argument)
				*s++ = ':';
		}
	}
	longopts[i] = (struct option){ NULL, 0, NULL, 0 };
	*s = '\0';
}

static int row_of(int c)
{
	if (c >= 256 && c < 256 + options_nrows)
		return c - 256;
	for (int i = 0; c > 0 && i < options_nrows; i++)
		if (options_rows[i].letter == c)
			return i;
	return -1;
}

/* The argument getopt_long just refused.  A bad letter inside a cluster
 * ("-every") leaves optind on that argument; anywhere else optind is past it. */
static const char *typed_option(int argc, char **argv)
{
	const char *prev = argv[optind - 1];

	if (optopt > 0 && optopt < 256 && optind < argc &&
	    !(prev[0] == '-' && prev[1] != '-' && strchr(prev, optopt)))
		return argv[optind];
	return prev;
}

/* The operands: nothing, a command after "--", or diff's profiles. */
static int take_command(struct options *o, int argc, char **argv)
{
	if (optind >= argc)
		return 0;
	if (o->diff) {
		o->diff_paths = &argv[optind];
		o->ndiff_paths = argc - optind;
		return 0;
	}
	/* getopt stops at "--" (consumed) or at the first operand. */
	if (strcmp(argv[optind - 1], "--")) {
		log_error("unexpected argument '%s' (a command goes after --)", argv[optind]);
		return -1;
	}
	o->command = &argv[optind];
	return 0;
}

enum options_result options_parse_at(int argc, char **argv, struct options *o,
				     const char *proc_root)
{
	struct option longopts[options_nrows + 1];
	char shortopts[2 * options_nrows + 3];	/* "+:", a letter and ':' per row, NUL */
	bool given[options_nrows];
	char err[512];
	int c;

	memset(given, 0, sizeof(given));
	set_defaults(o);
	/* "luabpfprof WORD ...": the word names the command (cli/commands.h);
	 * its options follow, parsed as if the word were not there. */
	if (argc > 1 && command_by_word(argv[1])) {
		command_select(o, command_by_word(argv[1])->id);
		argv[1] = argv[0];
		argc--;
		argv++;
	}
	build_getopt(longopts, shortopts);
	opterr = 0;
	/* diff: without the '+', getopt moves operands behind the options. */
	while ((c = getopt_long(argc, argv, shortopts + o->diff, longopts, NULL)) != -1) {
		int i = row_of(c), r;

		if (i < 0) {
			options_bad_option(c, typed_option(argc, argv));
			return OPTIONS_ERROR;
		}
		given[i] = true;
		r = options_rows[i].apply(o, &options_rows[i], optarg, err, sizeof(err));
		if (r == OPT_EXIT)
			return OPTIONS_EXIT_OK;
		if (r) {
			/* The message may quote the value: keep it one line. */
			for (char *p = err; *p; p++)
				if ((unsigned char)*p < ' ')
					*p = '?';
			log_error("%s", err);
			return OPTIONS_ERROR;
		}
	}
	if (take_command(o, argc, argv) || options_check_combination(o, given) ||
	    options_check_top(o, given) || options_check_diff(o, given) ||
	    options_settle_group(o))
		return OPTIONS_ERROR;
	options_settle(o, proc_root);
	command_resolve(o);
	return OPTIONS_OK;
}

enum options_result options_parse(int argc, char **argv, struct options *o)
{
	return options_parse_at(argc, argv, o, "/proc");
}
