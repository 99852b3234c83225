/* SPDX-License-Identifier: MIT */
/* Inside the option parser: the table's row, shared by the table
 * (options.c), the checks of combinations (options_combine.c), -h and the
 * messages about bad options (options_help.c) and the checks against the
 * host (options_host.c).  Not for main. */
#ifndef LBP_OPTIONS_TABLE_H
#define LBP_OPTIONS_TABLE_H

#include <stddef.h>
#include <stdio.h>

#include "cli/options.h"

enum {
	OPTF_CONTINUOUS = 1,		/* only meaningful with --continuous */
	OPTF_SECTION_AGENT = 2,		/* -h: the continuous mode's section starts here */
	OPTF_SECTION_GENERAL = 4,	/* -h: the closing section starts here */
	OPTF_LETTERS = 8,		/* choices are letters that combine ("Fl") */
};

/* A validator's result besides 0 (stored) and -1 (refused, err says why). */
#define OPT_EXIT	1		/* done: -h or --version was printed */

struct opt_row {
	const char *name;		/* long name, without "--" */
	const char *display;		/* in messages: "--every", "-d/--duration" */
	char letter;			/* short option, or 0 */
	int arg;			/* no_argument, required_argument, optional_argument */
	const char *meta;		/* the argument in -h ("SEC"), or NULL */
	/* Checks arg and stores it in o; -1 with the whole message in err. */
	int (*apply)(struct options *o, const struct opt_row *r, const char *arg, char *err,
		     size_t errlen);
	const char *help;		/* lines after the first start with '\n' */
	size_t at;			/* the field apply stores to, offset + 1; 0: its own */
	unsigned long long min, max;	/* bounds of a number (a duration: min seconds) */
	unsigned flags;
	/* The values the validator accepts, space-separated, for the man page
	 * and the completions; NULL when open-ended (test_options.c feeds each
	 * to the validator). */
	const char *choices;
};

/* Validators shared by options.c's table and options_agent.c. */
int options_set_string(struct options *o, const struct opt_row *r, const char *arg, char *err,
		       size_t errlen);
int options_set_push(struct options *o, const struct opt_row *r, const char *arg, char *err,
		     size_t errlen);
int options_set_push_api(struct options *o, const struct opt_row *r, const char *arg, char *err,
			 size_t errlen);
int options_set_service(struct options *o, const struct opt_row *r, const char *arg, char *err,
			size_t errlen);
int options_set_label_from(struct options *o, const struct opt_row *r, const char *arg,
			   char *err, size_t len);
int options_set_label(struct options *o, const struct opt_row *r, const char *arg, char *err,
		      size_t errlen);
int options_set_header_value(struct options *o, const struct opt_row *r, const char *arg,
			     char *err, size_t errlen);

/* options_event.c: what the events cost.  The defaults were chosen from
 * bench/RESULTS.md (figures 9 and 10). */
#define LBP_OFFCPU_RATE		0	/* auto */
#define LBP_OFFCPU_RATE_TEXT	"auto"
#define LBP_ALLOC_DUTY		0.03
#define LBP_ALLOC_DUTY_TEXT	"3%"
int options_set_off_cpu_rate(struct options *o, const struct opt_row *r, const char *arg,
			     char *err, size_t errlen);
int options_set_alloc_duty(struct options *o, const struct opt_row *r, const char *arg,
			   char *err, size_t errlen);
/* --alloc-exact's combinations: 0, or -1 with one line logged. */
int options_check_alloc_exact(const struct options *o);

/* options_diff.c: diff's values and combinations. */
int options_set_fail_if(struct options *o, const struct opt_row *r, const char *arg, char *err,
			size_t errlen);
int options_set_confidence(struct options *o, const struct opt_row *r, const char *arg,
			   char *err, size_t errlen);
int options_set_window(struct options *o, const struct opt_row *r, const char *arg, char *err,
		       size_t errlen);
/* 0, or -1 with one line logged: diff's operands and options, and diff's
 * options refused without diff. */
int options_check_diff(const struct options *o, const bool *given);

extern const struct opt_row options_rows[];
extern const int options_nrows;

/* What -h and the man page say besides the options. */
extern const char options_summary[];
extern const char options_duration_note[];
/* The examples at the end of -h and in the man page. */
struct opt_example {
	const char *command;		/* after "sudo " */
	const char *what;
};
extern const struct opt_example options_examples[];
extern const int options_nexamples;

/* options_combine.c: 0, or -1 with one line logged when options that
 * only make sense together are not (given[i]: row i was on the command
 * line). */
int options_check_combination(const struct options *o, const bool *given);
/* The same for `luabpfprof top` and its --delay. */
int options_check_top(const struct options *o, const bool *given);

/* options_help.c */
void options_usage(FILE *f);
void options_version(FILE *f);
/* A bad option from getopt_long (c is ':' or '?'), typed as `typed`: one
 * line naming it, with "did you mean" for a near miss. */
void options_bad_option(int c, const char *typed);

/* options_host.c: what follows from the options once all are in, and
 * the host's facts under proc_root: a -p thread id becomes its process,
 * the format follows from -o's name (with a warning if none does), the
 * rate is compared with the kernel's limit (a warning). */
void options_settle(struct options *o, const char *proc_root);

/* options_group.c: --group's pattern checked, and the view it implies:
 * the group's key (jit.p's states slot), then with --jp F, f or l its
 * functions.  -1 with one line logged when the pattern is refused. */
int options_settle_group(struct options *o);

#endif
