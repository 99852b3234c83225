// SPDX-License-Identifier: MIT
/* Option parsing: every numeric flag refuses a bad number, a negative, a
 * zero, an overflow and trailing junk with exactly one line on stderr;
 * unknown letters and missing values are named; every validator of the
 * option table and every message of issue 13 (items 8, 14, 15) is held.
 * Host facts come from a recorded /proc under a temporary directory. */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/stat.h>

#include "cli/options.h"
#include "cli/options_table.h"
#include "cli/optvalue.h"
#include "base/unit.h"

#define MAX_ARGS 300

static char errtext[16384];	/* -h is past 8 KiB */
static struct options opts;
/* The /proc the parser reads (thread groups, the rate limit): none by
 * default, so a PID that is a thread on this host changes nothing. */
static const char *proc_root = "/nonexistent-proc";

/* Runs options_parse on "luabpfprof ARGS..." (NULL-terminated) with stderr
 * (and stdout, for -h) captured into errtext. */
static enum options_result parse(const char *first, ...)
{
	static char *argv[MAX_ARGS + 2];
	enum options_result r;
	int argc = 0, saved_err, saved_out;
	FILE *cap = tmpfile();
	va_list ap;
	size_t n;

	argv[argc++] = "luabpfprof";
	va_start(ap, first);
	for (const char *a = first; a && argc < MAX_ARGS; a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;

	fflush(stdout);
	fflush(stderr);
	saved_err = dup(2);
	saved_out = dup(1);
	dup2(fileno(cap), 2);
	dup2(fileno(cap), 1);
	optind = 0;	/* full getopt reset between parses */
	r = options_parse_at(argc, argv, &opts, proc_root);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_err, 2);
	dup2(saved_out, 1);
	close(saved_err);
	close(saved_out);
	rewind(cap);
	n = fread(errtext, 1, sizeof(errtext) - 1, cap);
	errtext[n] = '\0';
	fclose(cap);
	return r;
}

static int lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* A refused value: OPTIONS_ERROR and one line that mentions `mention`. */
static void refused(const char *what, const char *mention, enum options_result r)
{
	char name[256];
	bool ok = r == OPTIONS_ERROR && lines(errtext) == 1 &&
		  !strncmp(errtext, "luabpfprof: ", 12) && strstr(errtext, mention);

	snprintf(name, sizeof(name), "refused: %s", what);
	CHECK(name, ok);
	if (!ok)
		printf("   stderr was: %s", errtext);
}

struct num_flag {
	const char *flag;	/* as typed */
	const char *mention;	/* what the error line must name */
	const char *good;	/* a valid value */
	const char *above;	/* just above the maximum */
	bool zero_ok;
};

static const struct num_flag num_flags[] = {
	{ "-p", "PID", "123", "4194305", false },
	{ "--pid", "PID", "123", "4194305", false },
	{ "-d", "duration", "2.5", "31536001", false },
	{ "--duration", "duration", "2", "31536001", false },
	{ "-F", "frequency", "499", "100001", false },
	{ "--frequency", "frequency", "99", "100001", false },
	{ "--tree-depth", "--tree-depth", "5", "1001", false },
	{ "--max-stacks", "--max-stacks", "64", "1048577", false },
	{ "--max-counts", "--max-counts", "64", "4194305", false },
	{ "--max-frames", "--max-frames", "16", "257", false },
	{ "--every", "--every", "10s", "8761h", false },
	{ "--retain-count", "--retain-count", "5", "1000001", false },
	{ "--retain-size", "--retain-size", "100M", "2000000000G", false },
	{ "--spool-size", "--spool-size", "64M", "2000000000G", false },
};

/* Parses FLAG VALUE plus whatever makes the command line complete. */
static enum options_result parse_flag(const char *flag, const char *value)
{
	bool is_pid = !strcmp(flag, "-p") || !strcmp(flag, "--pid");
	bool agent = !strcmp(flag, "--every") || !strncmp(flag, "--retain", 8) ||
		     !strcmp(flag, "--spool-size");

	if (is_pid)
		return parse(flag, value, NULL);
	if (agent)
		return parse("--continuous", "-a", "--out-dir", "/tmp", flag, value, NULL);
	return parse("-p", "1", flag, value, NULL);
}

static void numeric_flags(void)
{
	static const char *const bad[] = {
		"abc", "12abc", "1.5.2", "", " 5", "+5", "0x10", "1e3x", "--",
	};
	static const char *const negative[] = { "-5", "-0", "-1" };
	static const char *const overflow[] = {
		"99999999999999999999999", "18446744073709551616", "1e999",
	};
	char what[256];

	for (size_t i = 0; i < sizeof(num_flags) / sizeof(num_flags[0]); i++) {
		const struct num_flag *f = &num_flags[i];

		snprintf(what, sizeof(what), "%s %s accepted", f->flag, f->good);
		CHECK(what, parse_flag(f->flag, f->good) == OPTIONS_OK);
		for (size_t j = 0; j < sizeof(bad) / sizeof(bad[0]); j++) {
			/* "--" is a valid value only for nothing; "0x10" and
			 * "1e3x" are junk for the integer flags. */
			snprintf(what, sizeof(what), "%s '%s' (bad number)", f->flag, bad[j]);
			refused(what, f->mention, parse_flag(f->flag, bad[j]));
		}
		for (size_t j = 0; j < sizeof(negative) / sizeof(negative[0]); j++) {
			snprintf(what, sizeof(what), "%s %s (negative)", f->flag, negative[j]);
			refused(what, f->mention, parse_flag(f->flag, negative[j]));
		}
		if (!f->zero_ok) {
			snprintf(what, sizeof(what), "%s 0 (zero)", f->flag);
			refused(what, f->mention, parse_flag(f->flag, "0"));
		}
		for (size_t j = 0; j < sizeof(overflow) / sizeof(overflow[0]); j++) {
			snprintf(what, sizeof(what), "%s %s (overflow)", f->flag, overflow[j]);
			refused(what, f->mention, parse_flag(f->flag, overflow[j]));
		}
		snprintf(what, sizeof(what), "%s %s (above the maximum)", f->flag, f->above);
		refused(what, f->mention, parse_flag(f->flag, f->above));
		/* The flag with no value at the end of the command line. */
		snprintf(what, sizeof(what), "%s without a value", f->flag);
		if (!strcmp(f->flag, "-p") || !strcmp(f->flag, "--pid"))
			refused(what, "needs a value", parse(f->flag, NULL));
		else
			refused(what, "needs a value", parse("-p", "1", f->flag, NULL));
	}
}

static void values_parsed(void)
{
	CHECK("-p list parsed", parse("-p", "10,20", "--pid", "30", NULL) == OPTIONS_OK &&
	      opts.npids == 3 && opts.pids[0] == 10 && opts.pids[2] == 30);
	CHECK("-p maximum pid", parse("-p", "4194304", NULL) == OPTIONS_OK &&
	      opts.pids[0] == 4194304);
	CHECK("-d fraction", parse("-p", "1", "-d", "0.25", NULL) == OPTIONS_OK &&
	      opts.duration == 0.25);
	CHECK("-F bounds", parse("-p", "1", "-F", "100000", NULL) == OPTIONS_OK &&
	      opts.hz == 100000 && opts.hz_given);
	CHECK("defaults", parse("-p", "1", NULL) == OPTIONS_OK && opts.hz == 99 &&
	      opts.max_stacks == 4096 && opts.max_counts == 16384 && opts.max_frames == 256 &&
	      opts.duration == 0 && !opts.output);
	CHECK("--max-* minimums", parse("-p", "1", "--max-stacks", "2", "--max-counts", "2",
					"--max-frames", "1", NULL) == OPTIONS_OK &&
	      opts.max_stacks == 2 && opts.max_counts == 2 && opts.max_frames == 1);
	CHECK("--every 2m", parse("-a", "--continuous", "--out-dir", "/tmp", "--every", "2m",
				  NULL) == OPTIONS_OK && opts.every == 120);
	CHECK("--retain-size 1K", parse("-a", "--continuous", "--out-dir", "/tmp", "--retain-size",
					"1K", NULL) == OPTIONS_OK && opts.retain_bytes == 1024);
	CHECK("--every=5 (long form with =)", parse("-a", "--continuous", "--out-dir", "/tmp",
						     "--every=5", NULL) == OPTIONS_OK &&
	      opts.every == 5);
	CHECK("command after --", parse("--", "luajit", "x.lua", NULL) == OPTIONS_OK &&
	      opts.command && !strcmp(opts.command[0], "luajit"));
	CHECK("-h exits 0 with usage", parse("-h", NULL) == OPTIONS_EXIT_OK &&
	      strstr(errtext, "Usage: luabpfprof"));
}

static void other_errors(void)
{
	static char buf[MAX_PIDS + 1][16];

	refused("unknown letter -Z", "'-Z'", parse("-p", "1", "-Z", NULL));
	refused("unknown letter in a cluster -vQ", "'-Q'", parse("-p", "1", "-vQ", NULL));
	refused("unknown long option", "--bogus", parse("-p", "1", "--bogus", NULL));
	refused("value given to a flag without one", "--lua-only",
		parse("-p", "1", "--lua-only=yes", NULL));
	refused("-p empty list item", "PID", parse("-p", "1,,2", NULL));
	refused("-p trailing comma", "PID", parse("-p", "1,", NULL));
	refused("-p leading comma", "PID", parse("-p", ",1", NULL));
	refused("-o empty", "output", parse("-p", "1", "-o", "", NULL));
	refused("--focus empty", "--focus", parse("-p", "1", "--focus", "", NULL));
	refused("--label without =", "--label", parse("-a", "--continuous", "--label", "x", NULL));
	refused("--push-api unknown", "--push-api",
		parse("-a", "--continuous", "--push-api", "zipkin", NULL));
	refused("nothing to profile", "nothing to profile", parse("-d", "1", NULL));
	refused("-p and a command", "only one", parse("-p", "1", "--", "luajit", NULL));
	refused("operand without --", "unexpected argument", parse("-p", "1", "x.lua", NULL));
	refused("--push without --continuous", "--continuous",
		parse("-a", "--push", "http://x", NULL));

	/* More PIDs than the table holds. */
	for (int i = 0; i <= MAX_PIDS; i++)
		snprintf(buf[i], sizeof(buf[i]), "%d", i + 1);
	{
		char list[MAX_PIDS * 8];
		size_t off = 0;

		for (int i = 0; i <= MAX_PIDS; i++)
			off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s",
						i ? "," : "", buf[i]);
		refused("more than MAX_PIDS pids", "too many PIDs", parse("-p", list, NULL));
	}
}

static void helpers(void)
{
	unsigned long long v = 0;
	double d = 0;
	char why[128];

	CHECK("parse_uint max u64", !parse_uint("18446744073709551615", 0, ~0ull, &v) &&
	      v == ~0ull);
	CHECK("parse_uint u64 overflow", parse_uint("18446744073709551616", 0, ~0ull, &v));
	CHECK("parse_uint NULL", parse_uint(NULL, 0, 10, &v));
	CHECK("parse_uint below min", parse_uint("1", 2, 10, &v));
	CHECK("parse_uint tab", parse_uint("\t5", 0, 10, &v));
	CHECK("parse_duration nan", parse_duration("nan", 0, 1e9, &d, why, sizeof(why)));
	CHECK("parse_duration inf", parse_duration("inf", 0, 1e9, &d, why, sizeof(why)));
	CHECK("parse_duration underflow to 0", parse_duration("1e-400", 0, 1e9, &d, why,
							       sizeof(why)) &&
	      strstr(why, "more than 0"));
	CHECK("parse_duration 1 year", !parse_duration("31536000", 0, 31536000, &d, why,
						       sizeof(why)) && d == 31536000);
	CHECK("parse_duration bound named", parse_duration("2", 0, 1, &d, why, sizeof(why)) &&
	      strstr(why, "too large (at most 1s)"));
	CHECK("parse_duration min named", parse_duration("500ms", 1, 10, &d, why, sizeof(why)) &&
	      strstr(why, "at least 1s"));
	CHECK("parse_size 64K", !parse_size("64K", &v) && v == 65536);
	CHECK("parse_size 0", parse_size("0", &v));
	CHECK("parse_size unit only", parse_size("M", &v));
	CHECK("edit_distance kitten/sitting", edit_distance("kitten", "sitting") == 3);
	CHECK("edit_distance empty", edit_distance("", "abc") == 3);
	CHECK("edit_distance same", edit_distance("every", "every") == 0);
	CHECK("edit_distance transposition is 2", edit_distance("evrey", "every") == 2);
}

/* -- Issue 13, item 14: messages that name the real problem ------------- */

/* OPTIONS_ERROR, one line, that says `mention` and not `not`. */
static void refused_not(const char *what, const char *mention, const char *not,
			enum options_result r)
{
	refused(what, mention, r);
	if (not) {
		char name[256];

		snprintf(name, sizeof(name), "refused: %s: does not say \"%s\"", what, not);
		CHECK(name, !strstr(errtext, not));
	}
}

static void messages(void)
{
	refused_not("-d 1e99 is too large", "too large", "expected seconds > 0",
		    parse("-p", "1", "-d", "1e99", NULL));
	refused_not("-d 1e999 is too large", "too large", NULL, parse("-p", "1", "-d", "1e999", NULL));
	refused_not("-d 0 must be more than 0", "more than 0", NULL, parse("-p", "1", "-d", "0", NULL));
	refused_not("-d -5 must be more than 0", "more than 0", NULL,
		    parse("-p", "1", "-d", "-5", NULL));
	refused_not("-d 5x names the units", "500ms, 5s, 2m, 1h", NULL,
		    parse("-p", "1", "-d", "5x", NULL));
	refused_not("--every 500ms is below 1s", "at least 1s", NULL,
		    parse("-a", "--continuous", "--out-dir", "/tmp", "--every", "500ms", NULL));
	refused_not("--jp --N looks like an option", "looks like an option", "unknown letter",
		    parse("-p", "1", "--jp", "--N", NULL));
	refused_not("--jp -N: unknown letter, maybe a misplaced option", "misplaced option", NULL,
		    parse("-p", "1", "--jp", "-N", NULL));
	refused_not("--every without --continuous", "--every needs --continuous", NULL,
		    parse("-p", "1", "--every", "5", NULL));
	refused_not("--label with a bad name, before BPF", "the name must match", NULL,
		    parse("-a", "--continuous", "--out-dir", "/tmp", "--label", "9x=1", NULL));
	refused_not("--label with a reserved name", "__", NULL,
		    parse("-a", "--continuous", "--out-dir", "/tmp", "--label", "__name__=x", NULL));
	refused_not("--label with an empty value", "empty value", NULL,
		    parse("-a", "--continuous", "--out-dir", "/tmp", "--label", "k=", NULL));
	refused_not("--auth-token-file and --basic-auth-file", "only one of", NULL,
		    parse("-a", "--continuous", "--out-dir", "/tmp", "--auth-token-file", "/a",
			  "--basic-auth-file", "/b", NULL));
	refused_not("--tenant with CR LF", "control character", NULL,
		    parse("-a", "--continuous", "--out-dir", "/tmp", "--tenant", "t\r\nX-A: 1", NULL));
}

/* Every option that only the agent reads is refused without --continuous. */
static void continuous_only(void)
{
	char what[128], flag[64];

	for (int i = 0; i < options_nrows; i++) {
		const struct opt_row *r = &options_rows[i];

		if (!(r->flags & OPTF_CONTINUOUS))
			continue;
		snprintf(flag, sizeof(flag), "--%s", r->name);
		snprintf(what, sizeof(what), "%s without --continuous", flag);
		if (r->arg == no_argument)
			refused(what, "needs --continuous", parse("-p", "1", flag, NULL));
		else if (!strcmp(r->name, "push"))
			refused(what, "needs --continuous", parse("-p", "1", flag, "http://h", NULL));
		else if (!strcmp(r->name, "push-api"))
			refused(what, "needs --continuous", parse("-p", "1", flag, "push", NULL));
		else if (!strcmp(r->name, "label"))
			refused(what, "needs --continuous", parse("-p", "1", flag, "k=v", NULL));
		else if (strstr(r->name, "size"))
			refused(what, "needs --continuous", parse("-p", "1", flag, "1M", NULL));
		else
			refused(what, "needs --continuous", parse("-p", "1", flag, "10", NULL));
	}
}

static void push_urls(void)
{
	static const char *const bad[][2] = {
		{ "http://[::1", "no closing ']'" },
		{ "http://[zz::1]:4040/", "invalid IPv6 address" },
		{ "http://[::1]x/", "after the IPv6 address" },
		{ "http://[::1]:0/", "port" },
		{ "http://h:99999/", "port" },
		{ "http://h:/", "port" },
		{ "http://h:80x/", "port" },
		{ "http://:4040/", "no host name" },
		{ "http:///x", "no host name" },
		{ "http://ho st/", "space" },
		{ "http://h/\tx", "control character" },
		{ "http://h^/", "invalid character" },
		{ "http://h/#frag", "fragment" },
		{ "ftp://h/", "http:// or https://" },
		{ "h:4040", "http:// or https://" },
	};
	static const char *const good[] = {
		"http://[::1]:4040", "http://[::1]", "https://pyroscope:4040/", "http://127.0.0.1:5050",
		"http://h/prefix?x=1", "HTTP://H", "http://my-host.example_1:1/",
	};
	char what[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(what, sizeof(what), "--push %s (%s)", bad[i][0], bad[i][1]);
		refused(what, bad[i][1], parse("-a", "--continuous", "--push", bad[i][0], NULL));
	}
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		snprintf(what, sizeof(what), "--push %s accepted", good[i]);
		CHECK(what, parse("-a", "--continuous", "--push", good[i], NULL) == OPTIONS_OK &&
		      !strcmp(opts.push_url, good[i]));
	}
}

/* Values the table derives: what main and the agent use unchecked. */
static void derived_values(void)
{
	CHECK("--push-api parca parsed", parse("-a", "--continuous", "--out-dir", "/tmp",
					       "--push-api", "parca", NULL) == OPTIONS_OK &&
	      opts.push_api_id == PUSH_API_PARCA && !strcmp(opts.push_api, "parca"));
	CHECK("--push-api default ingest", parse("-p", "1", NULL) == OPTIONS_OK &&
	      opts.push_api_id == PUSH_API_INGEST);
	CHECK("--jp Fl parsed", parse("-p", "1", "--jp", "Fl", NULL) == OPTIONS_OK &&
	      opts.jp_mode.scope == 'l');
	CHECK("--jp default is jit.p's f", parse("-p", "1", NULL) == OPTIONS_OK &&
	      opts.jp_mode.scope == 'f' && opts.jp_mode.min == 3);
	CHECK("--jp v --vmstate-detail", parse("-p", "1", "--jp", "v", "--vmstate-detail", NULL) ==
	      OPTIONS_OK && opts.jp_mode.states == 'v' && opts.jp_mode.vmstate_detail);
	CHECK("--jp i4 sets the rate", parse("-p", "1", "--jp", "i4", NULL) == OPTIONS_OK &&
	      opts.hz == 250);
	CHECK("--tree", parse("-p", "1", "--tree", NULL) == OPTIONS_OK && opts.tree &&
	      !*opts.tree);
	CHECK("--tree=self", parse("-p", "1", "--tree=self", NULL) == OPTIONS_OK &&
	      !strcmp(opts.tree, "self"));
	CHECK("-f svg", parse("-p", "1", "-f", "svg", NULL) == OPTIONS_OK && opts.fmt == FMT_SVG);
	CHECK("-o x.pb.gz is pprof", parse("-p", "1", "-o", "x.pb.gz", NULL) == OPTIONS_OK &&
	      opts.fmt == FMT_PPROF && !*errtext);
	CHECK("-f wins over -o's name", parse("-p", "1", "-f", "folded", "-o", "x.svg", NULL) ==
	      OPTIONS_OK && opts.fmt == FMT_FOLDED);
	CHECK("--label k=v kept", parse("-a", "--continuous", "--out-dir", "/tmp", "--label",
					"env=ci", NULL) == OPTIONS_OK && opts.nlabels == 1);
}

/* -- Issue 13, item 15: what py-spy and perf users expect -------------------- */

static void durations_with_units(void)
{
	static const struct { const char *arg; double want; } durations[] = {
		{ "5", 5 }, { "5s", 5 }, { "2m", 120 }, { "500ms", 0.5 }, { "1h", 3600 },
		{ "1.5m", 90 }, { "2e1s", 20 }, { ".5", 0.5 },
	};
	char what[128];

	for (size_t i = 0; i < sizeof(durations) / sizeof(durations[0]); i++) {
		snprintf(what, sizeof(what), "-d %s is %g s", durations[i].arg, durations[i].want);
		CHECK(what, parse("-p", "1", "-d", durations[i].arg, NULL) == OPTIONS_OK &&
		      opts.duration == durations[i].want);
		snprintf(what, sizeof(what), "--every %s is %g s", durations[i].arg,
			 durations[i].want);
		if (durations[i].want >= 1)
			CHECK(what, parse("-a", "--continuous", "--out-dir", "/tmp", "--every",
					  durations[i].arg, NULL) == OPTIONS_OK &&
			      opts.every == durations[i].want);
	}
	refused("-d 5 s (a space)", "duration", parse("-p", "1", "-d", "5 s", NULL));
	refused("-d 5sec", "duration", parse("-p", "1", "-d", "5sec", NULL));
	refused("-d ms", "duration", parse("-p", "1", "-d", "ms", NULL));
	refused("-d 9000h (above a year)", "too large", parse("-p", "1", "-d", "9000h", NULL));
}

static void misspelt(void)
{
	refused_not("--evry suggests --every", "did you mean --every?", NULL,
		    parse("-p", "1", "--evry", "5", NULL));
	refused_not("--contnuous suggests --continuous", "did you mean --continuous?", NULL,
		    parse("-p", "1", "--contnuous", NULL));
	refused_not("--duraton=5 suggests --duration", "did you mean --duration?", NULL,
		    parse("-p", "1", "--duraton=5", NULL));
	refused_not("-every suggests --every", "did you mean --every?", NULL,
		    parse("-p", "1", "-every", "5", NULL));
	refused_not("--bogus suggests nothing", "'--bogus' (see -h)", "did you mean",
		    parse("-p", "1", "--bogus", NULL));
	refused_not("--re is ambiguous", "--retain-count, --retain-size", NULL,
		    parse("-p", "1", "--re", "5", NULL));
	refused_not("--lua-only=yes takes no value", "takes no value", NULL,
		    parse("-p", "1", "--lua-only=yes", NULL));
	refused_not("--verbose=1 takes no value", "--verbose takes no value", "'-v'",
		    parse("-p", "1", "--verbose=1", NULL));
}

static void version_and_help(void)
{
	char what[128], name[64];

	CHECK("--version exits 0 with the version", parse("--version", NULL) == OPTIONS_EXIT_OK &&
	      !strncmp(errtext, "luabpfprof ", 11) && lines(errtext) == 1);
	CHECK("-h exits 0", parse("-h", NULL) == OPTIONS_EXIT_OK);
	for (int i = 0; i < options_nrows; i++) {
		snprintf(name, sizeof(name), "--%s", options_rows[i].name);
		snprintf(what, sizeof(what), "-h lists %s", name);
		CHECK(what, strstr(errtext, name) != NULL);
	}
	CHECK("-h has the continuous section and examples",
	      strstr(errtext, "Continuous mode") && strstr(errtext, "Examples:"));
}

/* -o x.png: text, and one warning that says so. */
static void output_extension(void)
{
	CHECK("-o x.png warns and writes text", parse("-p", "1", "-o", "x.png", NULL) == OPTIONS_OK &&
	      opts.fmt == FMT_TEXT && lines(errtext) == 1 && strstr(errtext, "warning:") &&
	      strstr(errtext, "'.png'") && strstr(errtext, "writing text"));
	CHECK("-o x.txt: no warning", parse("-p", "1", "-o", "x.txt", NULL) == OPTIONS_OK &&
	      !*errtext);
	CHECK("-o /dev/null: no warning", parse("-p", "1", "-o", "/dev/null", NULL) == OPTIONS_OK &&
	      !*errtext);
	CHECK("-o dir.d/prof: no warning", parse("-p", "1", "-o", "dir.d/prof", NULL) ==
	      OPTIONS_OK && !*errtext);
	CHECK("-o run.2024-05-01 (not an extension): no warning",
	      parse("-p", "1", "-o", "run.2024-05-01", NULL) == OPTIONS_OK && !*errtext);
	CHECK("-o x.json (an extension of no format) warns",
	      parse("-p", "1", "-o", "x.json", NULL) == OPTIONS_OK && strstr(errtext, "'.json'"));
	CHECK("-o .hidden: no warning", parse("-p", "1", "-o", ".hidden", NULL) == OPTIONS_OK &&
	      !*errtext);
	CHECK("-f text -o x.png: no warning", parse("-p", "1", "-f", "text", "-o", "x.png", NULL) ==
	      OPTIONS_OK && !*errtext);
}

/* A recorded /proc: thread 201 of process 200, and a lowered rate limit. */
static void write_file(const char *dir, const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void host_facts(void)
{
	char dir[] = "/tmp/lbp-test-options.XXXXXX", path[512];

	if (!mkdtemp(dir)) {
		CHECK("recorded /proc", false);
		return;
	}
	snprintf(path, sizeof(path), "%s/200", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/201", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/sys", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/sys/kernel", dir);
	mkdir(path, 0700);
	write_file(dir, "200/status", "Name:\tluajit\nTgid:\t200\nPid:\t200\n");
	write_file(dir, "201/status", "Name:\tworker\nUmask:\t0022\nTgid:\t200\nPid:\t201\n");
	write_file(dir, "sys/kernel/perf_event_max_sample_rate", "1000\n");
	proc_root = dir;

	CHECK("-p TID profiles its process, with a note",
	      parse("-p", "201", NULL) == OPTIONS_OK && opts.npids == 1 && opts.pids[0] == 200 &&
	      lines(errtext) == 1 && strstr(errtext, "PID 201 is a thread of process 200"));
	CHECK("-p PID,TID of the same process: once", parse("-p", "200,201", NULL) == OPTIONS_OK &&
	      opts.npids == 1 && opts.pids[0] == 200);
	CHECK("-p PID (a process): no note", parse("-p", "200", NULL) == OPTIONS_OK &&
	      opts.pids[0] == 200 && !*errtext);
	CHECK("-p of an unknown PID: kept for the target check",
	      parse("-p", "999", NULL) == OPTIONS_OK && opts.pids[0] == 999 && !*errtext);
	CHECK("-F above the kernel's limit warns", parse("-p", "200", "-F", "5000", NULL) ==
	      OPTIONS_OK && lines(errtext) == 1 && strstr(errtext, "warning: 5000 Hz is above the "
							  "kernel's limit of 1000 Hz"));
	CHECK("-F at the kernel's limit: no warning", parse("-p", "200", "-F", "1000", NULL) ==
	      OPTIONS_OK && !*errtext);
	CHECK("--jp i1 (jit.p's interval: 1000 Hz) at the limit: no warning",
	      parse("-p", "200", "--jp", "i1", NULL) == OPTIONS_OK && opts.hz == 1000 &&
	      !*errtext);
	write_file(dir, "sys/kernel/perf_event_max_sample_rate", "500\n");
	CHECK("--jp i1 above a limit of 500 Hz warns", parse("-p", "200", "--jp", "i1", NULL) ==
	      OPTIONS_OK && strstr(errtext, "1000 Hz is above the kernel's limit of 500 Hz"));

	snprintf(path, sizeof(path), "%s/report.html", dir);
	mkdir(path, 0700);
	CHECK("-o DIR.html (a directory: refused later, as one line): no warning",
	      parse("-p", "200", "-o", path, NULL) == OPTIONS_OK && !*errtext);

	proc_root = "/nonexistent-proc";
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	if (system(path))
		printf("note: could not remove %s\n", dir);
}

static void more_tests(void)
{
	messages();
	continuous_only();
	push_urls();
	derived_values();
	durations_with_units();
	misspelt();
	version_and_help();
	output_extension();
	host_facts();
}

static void jit_flags(void)	/* --jit and its gate */
{
	CHECK("--jit defaults", parse("-p", "1", "--jit", NULL) == OPTIONS_OK && opts.jit &&
	      opts.fail_interp < 0 && opts.jit_hot == 1.0);
	CHECK("--jit --fail-if-interpreted 12.5 --jit-hot 4",
	      parse("-p", "1", "--jit", "--fail-if-interpreted", "12.5", "--jit-hot", "4",
		    NULL) == OPTIONS_OK && opts.fail_interp == 12.5 && opts.jit_hot == 4);
	refused("--fail-if-interpreted without --jit", "need --jit",
		parse("-p", "1", "--fail-if-interpreted", "5", NULL));
	refused("--fail-if-interpreted 101", "--fail-if-interpreted",
		parse("-p", "1", "--jit", "--fail-if-interpreted", "101", NULL));
	refused("--jit-hot -1", "--jit-hot", parse("-p", "1", "--jit", "--jit-hot", "-1", NULL));
	refused("--jit with --continuous", "--continuous",
		parse("-a", "--continuous", "--out-dir", "/tmp", "--jit", NULL));
}

int main(void)
{
	jit_flags();
	numeric_flags();
	values_parsed();
	other_errors();
	helpers();
	more_tests();
	UNIT_EXIT();
}
