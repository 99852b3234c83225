/* Option parsing: every numeric flag refuses a bad number, a negative, a
 * zero, an overflow and trailing junk with exactly one line on stderr;
 * unknown letters and missing values are named. */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/options.h"
#include "base/unit.h"

#define MAX_ARGS 300

static char errtext[4096];
static struct options opts;

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
	r = options_parse(argc, argv, &opts);
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

	CHECK("parse_uint max u64", !parse_uint("18446744073709551615", 0, ~0ull, &v) &&
	      v == ~0ull);
	CHECK("parse_uint u64 overflow", parse_uint("18446744073709551616", 0, ~0ull, &v));
	CHECK("parse_uint NULL", parse_uint(NULL, 0, 10, &v));
	CHECK("parse_uint below min", parse_uint("1", 2, 10, &v));
	CHECK("parse_uint tab", parse_uint("\t5", 0, 10, &v));
	CHECK("parse_seconds nan", parse_seconds("nan", &d));
	CHECK("parse_seconds inf", parse_seconds("inf", &d));
	CHECK("parse_seconds underflow to 0", parse_seconds("1e-400", &d));
	CHECK("parse_seconds 1 year", !parse_seconds("31536000", &d) && d == 31536000);
}

int main(void)
{
	numeric_flags();
	values_parsed();
	other_errors();
	helpers();
	UNIT_EXIT();
}
