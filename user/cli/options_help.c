// SPDX-License-Identifier: MIT
/* -h and --version, generated from the option table, and the one line
 * about an option that is not in it. */
#define _GNU_SOURCE
#include <bpf/libbpf.h>
#include <getopt.h>
#include <string.h>

#include "base/log.h"
#include "cli/commands.h"
#include "cli/options_table.h"
#include "cli/optvalue.h"

#include "cli/version.h"	/* generated from VERSION and git by the Makefile */

#define HELP_COLUMN	24	/* where every help text starts */

/* -- -h -------------------------------------------------------------------- */

/* "  -p, --pid PID[,PID]" or "      --tree[=self]". */
static int row_label(const struct opt_row *r, char *buf, size_t len)
{
	int n = snprintf(buf, len, "  %c%c%s--%s", r->letter ? '-' : ' ',
			 r->letter ? r->letter : ' ', r->letter ? ", " : "  ", r->name);

	if (r->meta && r->arg == optional_argument)
		n += snprintf(buf + n, len - (size_t)n, "[=%s]", r->meta);
	else if (r->meta)
		n += snprintf(buf + n, len - (size_t)n, " %s", r->meta);
	return n;
}

static void print_row(FILE *f, const struct opt_row *r)
{
	char label[80];
	int n = row_label(r, label, sizeof(label));
	const char *h = r->help;

	fputs(label, f);
	if (n > HELP_COLUMN - 2) {	/* too long: the help goes on its own line */
		fputc('\n', f);
		n = 0;
	}
	fprintf(f, "%*s", HELP_COLUMN - n, "");
	while (*h) {
		size_t line = strcspn(h, "\n");

		fprintf(f, "%.*s\n", (int)line, h);
		h += line;
		if (*h == '\n' && *++h)
			fprintf(f, "%*s", HELP_COLUMN, "");
	}
}

const char options_summary[] =
	"Samples running LuaJIT processes from BPF, with no restart, code change or\n"
	"debug symbols, and prints where the CPU goes in Lua terms.";
const char options_duration_note[] =
	"A duration (DUR) is seconds, or a number with a unit: 500ms, 5s, 2m, 1h.";

const struct opt_example options_examples[] = {
	{ "luabpfprof -p 1234 -d 5", "top Lua functions, like luajit -jp" },
	{ "luabpfprof -p 1234 -d 5 --jp Fl", "chunk:function, then hot lines" },
	{ "luabpfprof -p 1234 -d 10 --jp v", "VM states: compiled, interpreted, C, GC, JIT" },
	{ "luabpfprof -p 1234 -d 10 --jit", "which hot code is not compiled, and why" },
	{ "luabpfprof -p 1234 -d 10 -o prof.svg", "interactive flame graph" },
	{ "luabpfprof -p 1234 -d 2m -o prof.pb.gz", "pprof, for go tool pprof" },
	{ "luabpfprof --tree -- luajit app.lua", "launch and profile until it exits" },
	{ "luabpfprof top -p 1234", "live table of the hot Lua functions (q quits)" },
	{ "luabpfprof top -e off-cpu -p 1234", "live: where its threads wait" },
	{ "luabpfprof dump -p 1234 --locals", "every coroutine's stack and locals, now" },
	{ "luabpfprof -a --continuous --every 10s --push http://pyroscope:4040", NULL },
};
const int options_nexamples = sizeof(options_examples) / sizeof(options_examples[0]);

void options_usage(FILE *f)
{
	/* One line per command of cli/commands.h; record, the default,
	 * without its word. */
	for (int i = 0; i < CMD__COUNT; i++) {
		const struct command *c = &commands[i];

		fprintf(f, "%s luabpfprof", i ? "      " : "Usage:");
		if (c->id != CMD_RECORD)
			fprintf(f, " %s", c->word);
		if (c->alias)
			fprintf(f, " (or %s)", c->alias);
		fprintf(f, "%s%s\n", *c->usage ? " " : "", c->usage);
	}
	fprintf(f, "\n%s\n\n", options_summary);
	for (int i = 0; i < options_nrows; i++) {
		const struct opt_row *r = &options_rows[i];

		if (r->flags & OPTF_SECTION_AGENT)
			fputs("\nContinuous mode (a node agent):\n", f);
		if (r->flags & OPTF_SECTION_GENERAL)
			fputc('\n', f);
		print_row(f, r);
	}
	fprintf(f, "\n%s\n\nExamples:\n", options_duration_note);
	for (int i = 0; i < options_nexamples; i++) {
		const struct opt_example *e = &options_examples[i];

		if (e->what)
			fprintf(f, "  sudo %-38s  %s\n", e->command, e->what);
		else
			fprintf(f, "  sudo %s\n", e->command);
	}
}

void options_version(FILE *f)
{
	fprintf(f, "luabpfprof %s (commit %s, libbpf %u.%u)\n", LUABPFPROF_VERSION,
		LUABPFPROF_COMMIT, libbpf_major_version(), libbpf_minor_version());
}

/* -- A bad option ---------------------------------------------------------- */

static const struct opt_row *row_named(const char *name, size_t len)
{
	for (int i = 0; i < options_nrows; i++)
		if (strlen(options_rows[i].name) == len && !strncmp(options_rows[i].name, name, len))
			return &options_rows[i];
	return NULL;
}

/* The long option nearest to name, if it is a plausible typo. */
static const struct opt_row *nearest(const char *name)
{
	const struct opt_row *best = NULL;
	unsigned best_d = 255, limit = strlen(name) > 6 ? 2 : 1;

	for (int i = 0; i < options_nrows; i++) {
		unsigned d = edit_distance(name, options_rows[i].name);

		if (d < best_d) {
			best_d = d;
			best = &options_rows[i];
		}
	}
	return best_d <= limit ? best : NULL;
}

/* "--re": the options it could abbreviate, or 0 if fewer than two. */
static int ambiguous(const char *name, char *list, size_t len)
{
	size_t n = strlen(name), off = 0;
	int count = 0;

	for (int i = 0; i < options_nrows; i++) {
		if (strncmp(options_rows[i].name, name, n))
			continue;
		if (off < len)
			off += (size_t)snprintf(list + off, len - off, "%s--%s", count ? ", " : "",
						options_rows[i].name);
		count++;
	}
	return count >= 2 ? count : 0;
}

static void bad_long_option(const char *typed)
{
	char name[64], list[256];
	size_t n = strcspn(typed + 2, "=");
	const struct opt_row *r;

	snprintf(name, sizeof(name), "%.*s", (int)(n < sizeof(name) ? n : sizeof(name) - 1),
		 typed + 2);
	/* getopt knew the option (optopt is its value): it was given a value. */
	if (optopt) {
		r = optopt >= 256 ? &options_rows[optopt - 256] : NULL;
		for (int i = 0; !r && i < options_nrows; i++)
			if (options_rows[i].letter == optopt)
				r = &options_rows[i];
		if (r) {
			log_error("option --%s takes no value (given '%s')", r->name, typed);
			return;
		}
	}
	if (ambiguous(name, list, sizeof(list))) {
		log_error("ambiguous option '--%s': %s (see -h)", name, list);
		return;
	}
	r = nearest(name);
	if (r)
		log_error("unknown option '%s' (did you mean --%s?)", typed, r->name);
	else
		log_error("unknown option '%s' (see -h)", typed);
}

void options_bad_option(int c, const char *raw)
{
	char typed[128];
	const struct opt_row *r;

	/* Quoted as typed, but on one line. */
	snprintf(typed, sizeof(typed), "%s", raw);
	for (char *p = typed; *p; p++)
		if ((unsigned char)*p < ' ')
			*p = '?';

	if (c == ':') {
		log_error("option %s needs a value (see -h)", typed);
		return;
	}
	if (!strncmp(typed, "--", 2)) {
		bad_long_option(typed);
		return;
	}
	/* "-every": a long option with one dash, read as the letters e, v ... */
	r = typed[0] == '-' ? row_named(typed + 1, strcspn(typed + 1, "=")) : NULL;
	if (r)
		log_error("unknown option '-%c' (did you mean --%s?)", optopt, r->name);
	else if (optopt > 0 && optopt < 256)
		log_error("unknown option '-%c' (see -h)", optopt);
	else
		log_error("unknown option '%s' (see -h)", typed);
}
