// SPDX-License-Identifier: MIT
/* luabpfprof(1) in roff (man macros): the options from the option table,
 * in the order and sections of -h, and the values of -e and -f from their
 * rows' choices; a choice without a paragraph here fails the build. */
#include <getopt.h>
#include <string.h>

#include "base/log.h"
#include "cli/commands.h"
#include "cli/docgen.h"
#include "cli/options_table.h"
#include "cli/version.h"

struct choice_text {
	const char *value;
	const char *text;
};

static const struct choice_text event_texts[] = {
	{ "cpu", "On-CPU samples, the default: a timer fires F times a second on every CPU and, "
	  "when it interrupts a target thread, the Lua stack is walked in the kernel." },
	{ "off-cpu", "Time threads spend switched out (blocked on I/O, a lock, a sleep, or "
	  "waiting for a CPU), by the Lua stack they left from, read at the sched_switch "
	  "tracepoint. Switches shorter than --min-block are only counted." },
	{ "wall", "Both halves: where each thread's elapsed time went, running or not, as "
	  "shares of wall-clock time." },
	{ "alloc", "Bytes the VM allocates, by Lua stack: one sample per --alloc-every bytes, "
	  "from a uprobe on the VM's allocator." },
	{ "cpu,off-cpu", "With --continuous only: one collection, shipped as two profile "
	  "types (CPU and off-CPU) per interval." },
};

static const struct choice_text format_texts[] = {
	{ "text", "The views of luajit -jp (see --jp), or the call tree (--tree). The "
	  "default, and what a name with none of the extensions below gets." },
	{ "folded", "One line per stack, frames separated by ';', then the count: the input "
	  "of flamegraph.pl and inferno. Implied by .folded and .collapsed." },
	{ "svg", "An interactive flame graph (search, zoom), one file with no external "
	  "references. Implied by .svg." },
	{ "pprof", "A gzip-compressed pprof profile, for go tool pprof, Pyroscope and Parca. "
	  "Implied by .pb.gz and .pprof." },
	{ "speedscope", "speedscope's JSON file format, one profile per process. Implied by "
	  ".speedscope.json." },
	{ "otlp", "an OpenTelemetry profiles request (ExportProfilesServiceRequest, protobuf): "
	  "one resource per process, one profile per sample type, a shared dictionary. "
	  "Implied by .otlp; --push-api otlp sends the same to a collector." },
	{ "chrome", "a timeline: the Trace Event format that Perfetto (ui.perfetto.dev), "
	  "chrome://tracing and speedscope open, one track per thread, each sample in "
	  "time (to 1 ms), equal stacks in a row merged into one slice. Times are "
	  "microseconds since the run's start, whose CLOCK_MONOTONIC time is in the file. "
	  "Implied by .trace.json." },
	{ "speedscope-evented", "the same timeline as speedscope's evented profiles, one "
	  "per thread. Implied by .evented.speedscope.json." },
};

/* -- Escaping -------------------------------------------------------------- */

#define WRAP_AT	72	/* mandoc -T lint: input lines of at most 80 bytes */

/* One character of text: a backslash and a minus escaped, a line break in
 * the table's help a space.  Returns the bytes written. */
static int roff_char(FILE *f, char c)
{
	if (c == '\\')
		return fputs("\\e", f), 2;
	if (c == '-')
		return fputs("\\-", f), 2;
	fputc(c == '\n' ? ' ' : c, f);
	return 1;
}

/* Text inside a line (no breaks). */
static void roff_text(FILE *f, const char *s)
{
	for (; *s; s++)
		roff_char(f, *s);
}

/* Text as body lines, broken at spaces before WRAP_AT; a line that would
 * start with a control character ('.', '\'') is guarded by \&. */
static void roff_line(FILE *f, const char *s)
{
	int col = 0;

	for (; *s; s++) {
		if ((*s == ' ' || *s == '\n') && col >= WRAP_AT - 12 && s[1]) {
			fputc('\n', f);
			col = 0;
			continue;
		}
		if (col == 0 && (*s == '.' || *s == '\''))
			col += fputs("\\&", f) > 0 ? 2 : 0;
		col += roff_char(f, *s);
	}
	fputc('\n', f);
}

/* -- Options --------------------------------------------------------------- */

/* ".TP" and "\fB\-p\fR, \fB\-\-pid\fR \fIPID[,PID]\fR", then the help. */
static void option_item(FILE *f, const struct opt_row *r)
{
	fputs(".TP\n", f);
	if (r->letter)
		fprintf(f, "\\fB\\-%c\\fR, ", r->letter);
	fputs("\\fB", f);
	roff_text(f, "--");
	roff_text(f, r->name);
	fputs("\\fR", f);
	if (r->meta) {
		fputs(r->arg == optional_argument ? "[=\\fI" : " \\fI", f);
		roff_text(f, r->meta);
		fputs(r->arg == optional_argument ? "\\fR]" : "\\fR", f);
	}
	fputc('\n', f);
	roff_line(f, r->help);
}

/* Rows from..to-1. */
static void option_items(FILE *f, int from, int to)
{
	for (int i = from; i < to; i++)
		option_item(f, &options_rows[i]);
}

static int section_start(unsigned flag)
{
	for (int i = 0; i < options_nrows; i++)
		if (options_rows[i].flags & flag)
			return i;
	return options_nrows;
}

/* One .TP per choice of the row, with its paragraph from texts. */
static int choice_items(FILE *f, const char *option, const struct choice_text *texts,
			size_t ntexts)
{
	const struct opt_row *r = docgen_row(option);
	const char *p = r ? r->choices : NULL;

	if (!p) {
		log_error("docgen: --%s has no choices in the option table", option);
		return -1;
	}
	while (*p) {
		size_t n = strcspn(p, " ");
		size_t i;

		for (i = 0; i < ntexts; i++)
			if (strlen(texts[i].value) == n && !strncmp(texts[i].value, p, n))
				break;
		if (i == ntexts) {
			log_error("docgen: --%s %.*s has no paragraph in the man page", option,
				  (int)n, p);
			return -1;
		}
		fputs(".TP\n\\fB", f);
		roff_text(f, texts[i].value);
		fputs("\\fR\n", f);
		roff_line(f, texts[i].text);
		p += n + (p[n] == ' ');
	}
	return 0;
}

/* -- The page -------------------------------------------------------------- */

/* text with roff's hyphens. */
static void roff_hyphens(FILE *f, const char *text)
{
	for (; *text; text++) {
		if (*text == '-')
			fputc('\\', f);
		fputc(*text, f);
	}
}

/* One line per command of cli/commands.h. */
static void synopsis(FILE *f)
{
	for (int i = 0; i < CMD__COUNT; i++) {
		const struct command *c = &commands[i];

		fprintf(f, "%s.B luabpfprof", i ? ".br\n" : "");
		if (c->id != CMD_RECORD) {
			fputc(' ', f);
			roff_hyphens(f, c->word);
		}
		fputc('\n', f);
		if (*c->usage) {
			roff_hyphens(f, c->usage);
			fputc('\n', f);
		}
	}
}

static void head(FILE *f)
{
	fprintf(f, ".\\\" Generated by docgen from user/cli/options.c; do not edit.\n"
		".TH LUABPFPROF 1 %s \"luabpfprof %s\" \"User Commands\"\n"
		".\\\" Options and URLs are not hyphenated, lines not justified.\n"
		".nh\n.ad l\n"
		".SH NAME\n"
		"luabpfprof \\- sampling profiler for running LuaJIT processes, from BPF\n"
		".SH SYNOPSIS\n", LUABPFPROF_DATE, LUABPFPROF_VERSION);
	synopsis(f);
	fputs(".SH DESCRIPTION\n", f);
	roff_line(f, options_summary);
	roff_line(f, "A perf_event BPF program walks the Lua stack inside the kernel at the "
		  "instant of the timer; luabpfprof names the frames by reading the target's "
		  "memory, and prints what luajit -jp would, a call tree, a JIT health "
		  "report, or writes flame graphs and pprof files. Without -d it runs until "
		  "Ctrl-C, SIGTERM or the exit of its targets, then reports.");
	fputs(".PP\n", f);
	roff_line(f, options_duration_note);
}

/* Tagged paragraphs: each value in font ('B', 'I'), then its text. */
static void tagged_items(FILE *f, const struct choice_text *items, size_t n, char font)
{
	for (size_t i = 0; i < n; i++) {
		fprintf(f, ".TP\n\\f%c", font);
		roff_text(f, items[i].value);
		fputs("\\fR\n", f);
		roff_line(f, items[i].text);
	}
}

static void top_text(FILE *f)
{
	static const struct choice_text keys[] = {
		{ "o t O T", "Sort by own share, total share, own time, total time." },
		{ "1 ... 9", "Sort by the Nth column on the screen; < and > move the sort "
		  "column left and right, i turns the order around." },
		{ "n", "Sort by name." },
		{ "p, space", "Pause: the table stops counting (those intervals are left "
		  "out) until pressed again." },
		{ "r", "Reset: count from now." },
		{ "/, f", "Filter: only rows whose function, chunk, pid or process name "
		  "contain the text typed (Enter keeps it, Escape drops it)." },
		{ "?, h", "A line listing the keys." },
		{ "q", "Quit." },
	};

	fputs(".SH \"LIVE VIEW\"\n", f);
	roff_line(f, "luabpfprof top draws a table of the Lua functions of its targets that "
		  "it updates every --delay (1 s by default), for the whole time since it "
		  "started or was reset: each function's own share (its samples as the "
		  "topmost Lua function, the C functions it called included), its total "
		  "share (on the stack), the times behind them, and the VM states of its "
		  "own samples as jit.p's v view letters them (N compiled, I interpreted, "
		  "C, G garbage collector, J JIT compiler). The header gives the samples, "
		  "their rate, the targets' CPU use and the samples lost. With -a or "
		  "several processes, rows are per process. Every -e event works: -e "
		  "off-cpu shows where threads wait. A narrow terminal drops the state "
		  "and time columns first. The terminal is restored on q, Ctrl-C, SIGTERM, "
		  "SIGHUP and when the targets exit; it exits 0 then (with -- COMMAND, "
		  "with the command's status). A command launched by top gets /dev/null "
		  "as its standard input and output, which the screen needs.");
	tagged_items(f, keys, sizeof(keys) / sizeof(keys[0]), 'B');
}

static void continuous_text(FILE *f)
{
	fputs(".SH \"CONTINUOUS MODE\"\n", f);
	roff_line(f, "With --continuous, luabpfprof runs as a node agent until stopped: usually "
		  "with -a, every LuaJIT process on the host, new ones included. Every "
		  "--every interval it cuts one delta profile per process and hands it to "
		  "rolling pprof files (--out-dir) or to a Pyroscope or Parca server (--push), "
		  "with a bounded spool for outages. SIGTERM or SIGINT ships the interval in "
		  "progress before it exits; SIGHUP reopens --log-file.");
	fputs(".PP\n", f);
	roff_line(f, "Credentials are read from root-only files, never taken on the command "
		  "line. A systemd unit is installed, disabled: luabpfprof.service.");
	option_items(f, section_start(OPTF_SECTION_AGENT), section_start(OPTF_SECTION_GENERAL));
}

static void files_text(FILE *f)
{
	static const struct choice_text files[] = {
		{ "FILE (-o)", "The report. It is written without a name and linked into "
		  "place when complete, so that a reader never sees half a file (a "
		  "device or FIFO is written in place). Another user's symbolic link is "
		  "replaced, never followed." },
		{ "DIR/TIME-SERVICE-PID.pb.gz (--out-dir)", "One gzip pprof file per process "
		  "and interval, named by the interval's UTC start time; the oldest are "
		  "removed beyond --retain-count or --retain-size." },
		{ "DIR (--spool-dir)", "Requests not yet delivered, one file each, within "
		  "--spool-size; the next run sends them first." },
		{ "F (--log-file)", "The log, appended to, reopened on SIGHUP." },
		{ "/proc/PID/root/.../share/luajit*/jit/vmdef.lua", "Read, if the target has "
		  "it, for the names of fast functions; otherwise a built-in table is used." },
		{ "/usr/lib/debug/.build-id/", "Read by --native for the unwind tables of "
		  "stripped files." },
	};

	fputs(".SH FILES\n", f);
	roff_line(f, "The agent's directories (--out-dir, --spool-dir, the directory of "
		  "--log-file) must be owned by root and writable by nobody else; no "
		  "symbolic link is followed in them.");
	tagged_items(f, files, sizeof(files) / sizeof(files[0]), 'I');
}

static void status_text(FILE *f)
{
	static const struct choice_text codes[] = {
		{ "0", "A report was written (also when the targets exited during the run)." },
		{ "1", "A run-time error: a target cannot be profiled, privileges are missing, "
		  "BPF or BTF is unavailable, or the output cannot be written." },
		{ "2", "A bad option or value; nothing was started." },
		{ "3", "--fail-if-interpreted: a hot function ran interpreted too often." },
		{ "127", "-- COMMAND could not be executed." },
	};

	fputs(".SH \"EXIT STATUS\"\n", f);
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		fprintf(f, ".TP\n.B %s\n", codes[i].value);
		roff_line(f, codes[i].text);
	}
	fputs(".PP\n", f);
	roff_line(f, "With -- COMMAND, a run that succeeded ends with the command's status "
		  "(128 + N if signal N killed it).");
}

static void tail_text(FILE *f)
{
	fputs(".SH REQUIREMENTS\n", f);
	roff_line(f, "Linux 5.10 or later (tested on Debian's 5.10, 6.1, 6.12, 6.18 and 7.3; "
		  "the BPF ring buffer of 5.8 is the hard floor) with BPF, perf events (the "
		  "software cpu-clock event suffices) and "
		  "kernel BTF (/sys/kernel/btf/vmlinux, CONFIG_DEBUG_INFO_BTF=y; or a BTF file "
		  "named by the environment variable LUABPFPROF_BTF). --check-kernel tells "
		  "whether this kernel's BPF verifier accepts every mode. Root, or the "
		  "capabilities CAP_BPF, CAP_PERFMON and CAP_SYS_PTRACE (CAP_SYS_ADMIN "
		  "instead of the first two before Linux 5.8). Targets: LuaJIT 2.1, "
		  "upstream and OpenResty's, GC64 or not, executables and C hosts; no debug "
		  "symbols needed.");
	fputs(".SH EXAMPLES\n", f);
	for (int i = 0; i < options_nexamples; i++) {
		const struct opt_example *e = &options_examples[i];

		char cmd[160];

		if (i)
			fputs(".PP\n", f);
		roff_line(f, e->what ? e->what : "a node agent, pushing to Pyroscope");
		/* Bold by request: a command longer than a line wraps. */
		fputs(".RS 4\n.ft B\n", f);
		snprintf(cmd, sizeof(cmd), "sudo %s", e->command);
		roff_line(f, cmd);
		fputs(".ft R\n.RE\n", f);
	}
	fputs(".SH \"SEE ALSO\"\n"
	      ".BR luajit (1),\n"
	      ".BR perf (1)\n"
	      ".PP\n", f);
	roff_line(f, "README.md and docs/ in the documentation directory "
		  "(/usr/share/doc/luabpfprof when installed from the package).");
}

int docgen_man(FILE *f)
{
	int agent = section_start(OPTF_SECTION_AGENT);

	head(f);
	fputs(".SH OPTIONS\n", f);
	option_items(f, 0, agent);
	option_items(f, section_start(OPTF_SECTION_GENERAL), options_nrows);
	fputs(".SH EVENTS\n", f);
	roff_line(f, "What -e samples; every view and format applies to each.");
	if (choice_items(f, "event", event_texts, sizeof(event_texts) / sizeof(event_texts[0])))
		return -1;
	fputs(".SH FORMATS\n", f);
	roff_line(f, "What -f writes; without -f, the extension of -o's file name decides.");
	if (choice_items(f, "format", format_texts,
			 sizeof(format_texts) / sizeof(format_texts[0])))
		return -1;
	top_text(f);
	continuous_text(f);
	files_text(f);
	status_text(f);
	tail_text(f);
	return ferror(f) ? -1 : 0;
}
