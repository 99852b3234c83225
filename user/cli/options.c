// SPDX-License-Identifier: MIT
/* The option table: one row per option, with its names, argument, help
 * line and validator.  getopt_long's tables and -h are built from it (as
 * argp does for bcc's libbpf-tools), and every check is made here, so a
 * bad command line is refused before BPF is loaded or a target touched. */
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

#define MAX_HZ		100000
#define MAX_SECONDS	(365.0 * 24 * 3600)

/* -- Validators ------------------------------------------------------------ */

/* Each stores a checked value into o, or returns -1 with the whole
 * one-line message in err.  `at` is the row's field (offset + 1). */
#define AT(field)	(offsetof(struct options, field) + 1)
#define FIELD(o, row, type)	((type *)((char *)(o) + (row)->at - 1))

static int set_flag(struct options *o, const struct opt_row *r, const char *arg, char *err,
		    size_t len)
{
	(void)arg, (void)err, (void)len;
	*FIELD(o, r, bool) = true;
	return 0;
}

/* A share in percent, 0..100, into a double. */
static int set_percent(struct options *o, const struct opt_row *r, const char *arg, char *err,
		       size_t len)
{
	char *end;
	double v = strtod(arg, &end);

	if (!*arg || *end || !(v >= 0 && v <= 100)) {
		snprintf(err, len, "invalid %s '%s': expected a percentage from 0 to 100",
			 r->display, arg);
		return -1;
	}
	*FIELD(o, r, double) = v;
	return 0;
}

/* A name or path: anything but empty. */
int options_set_string(struct options *o, const struct opt_row *r, const char *arg, char *err,
		      size_t len)
{
	if (!*arg) {
		snprintf(err, len, "empty %s value", r->display);
		return -1;
	}
	*FIELD(o, r, const char *) = arg;
	return 0;
}

/* A whole number in [r->min, r->max], into a 32-bit field. */
static int set_count(struct options *o, const struct opt_row *r, const char *arg, char *err,
		     size_t len)
{
	unsigned long long v;
	uint32_t v32;

	_Static_assert(sizeof(int) == sizeof(uint32_t), "count fields are 32-bit");
	if (parse_uint(arg, r->min, r->max, &v)) {
		snprintf(err, len, "invalid %s '%s': expected a whole number from %llu to %llu",
			 r->display, arg, r->min, r->max);
		return -1;
	}
	v32 = (uint32_t)v;
	memcpy(FIELD(o, r, uint32_t), &v32, sizeof(v32));
	return 0;
}

/* A duration of at least r->min seconds (more than 0 if 0). */
static int set_duration(struct options *o, const struct opt_row *r, const char *arg, char *err,
			size_t len)
{
	char why[128];

	if (parse_duration(arg, (double)r->min, MAX_SECONDS, FIELD(o, r, double), why,
			   sizeof(why))) {
		snprintf(err, len, "invalid %s '%s': %s", r->display, arg, why);
		return -1;
	}
	return 0;
}

static int set_size(struct options *o, const struct opt_row *r, const char *arg, char *err,
		    size_t len)
{
	if (parse_size(arg, FIELD(o, r, unsigned long long))) {
		snprintf(err, len, "invalid %s '%s': expected a size such as 64M (K, M or G)",
			 r->display, arg);
		return -1;
	}
	return 0;
}

/* Bytes per allocation sample: from 1 KiB (each sample walks a stack) to
 * 1 GiB. */
static int set_alloc_every(struct options *o, const struct opt_row *r, const char *arg,
			   char *err, size_t len)
{
	unsigned long long v;

	if (parse_size(arg, &v) || v < 1024 || v > (1ull << 30)) {
		snprintf(err, len, "invalid %s '%s': expected a size from 1K to 1G (e.g. 512K)",
			 r->display, arg);
		return -1;
	}
	o->alloc_every = v;
	return 0;
}

static int set_pids(struct options *o, const struct opt_row *r, const char *arg, char *err,
		    size_t len)
{
	const char *p = arg;

	(void)r;
	if (!*arg || *arg == ',' || arg[strlen(arg) - 1] == ',' || strstr(arg, ",,")) {
		snprintf(err, len, "invalid PID list '%s'", arg);
		return -1;
	}
	while (*p) {
		char tok[32];
		size_t n = strcspn(p, ",");
		unsigned long long pid;

		snprintf(tok, sizeof(tok), "%.*s", (int)(n < sizeof(tok) ? n : sizeof(tok) - 1), p);
		if (n >= sizeof(tok) || parse_uint(tok, 1, 4194304, &pid)) {
			snprintf(err, len, "invalid PID '%.*s': expected a positive process id",
				 (int)n, p);
			return -1;
		}
		if (o->npids == MAX_PIDS) {
			snprintf(err, len, "too many PIDs (at most %d)", MAX_PIDS);
			return -1;
		}
		o->pids[o->npids++] = (pid_t)pid;
		p += n + (p[n] == ',');
	}
	return 0;
}

static int set_frequency(struct options *o, const struct opt_row *r, const char *arg, char *err,
			 size_t len)
{
	if (set_count(o, r, arg, err, len))
		return -1;
	o->hz_given = true;
	return 0;
}

static int set_event(struct options *o, const struct opt_row *r, const char *arg, char *err,
		     size_t len)
{
	static const enum profile_event events[] = { PROFILE_CPU, PROFILE_OFFCPU, PROFILE_WALL,
						      PROFILE_ALLOC };

	(void)r;
	o->event_split = false;
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		if (!strcmp(arg, profile_event_name(events[i]))) {
			o->event = events[i];
			return 0;
		}
	}
	/* Both halves of wall time, kept apart: one collection, two profiles. */
	if (!strcmp(arg, "cpu,off-cpu") || !strcmp(arg, "off-cpu,cpu")) {
		o->event = PROFILE_WALL;
		o->event_split = true;
		return 0;
	}
	/* "-every": a long option typed with one dash reads as -e "very". */
	for (int i = 0; i < options_nrows; i++) {
		const char *name = options_rows[i].name;

		if (name[0] == 'e' && !strcmp(name + 1, arg)) {
			snprintf(err, len, "unknown option '-%s' (did you mean --%s?)", name, name);
			return -1;
		}
	}
	snprintf(err, len, "unknown event '%s': use cpu, off-cpu, wall, alloc or (--continuous) cpu,off-cpu",
		 arg);
	return -1;
}

static int set_min_block(struct options *o, const struct opt_row *r, const char *arg, char *err,
			 size_t len)
{
	if (!parse_short_time(arg, &o->min_block_ns))
		return 0;
	snprintf(err, len, "invalid %s '%s': expected a time up to 1s such as 10us, 500ns or 2ms",
		 r->display, arg);
	return -1;
}

static int set_format(struct options *o, const struct opt_row *r, const char *arg, char *err,
		      size_t len)
{
	(void)r;
	if (out_format_parse(arg, &o->fmt)) {
		snprintf(err, len, "unknown format '%s': use text, folded, svg, pprof, speedscope, otlp, "
			 "chrome or speedscope-evented", arg);
		return -1;
	}
	o->format = arg;
	return 0;
}

static int set_jp(struct options *o, const struct opt_row *r, const char *arg, char *err,
		  size_t len)
{
	(void)r;
	/* "--jp --N": the mode was forgotten and the next option taken for it. */
	if (!strncmp(arg, "--", 2)) {
		snprintf(err, len, "invalid --jp mode \"%s\": a mode cannot start with '--'; it "
			 "looks like an option (give the mode right after --jp, e.g. --jp Fl)", arg);
		return -1;
	}
	if (jp_mode_parse(arg, &o->jp_mode, err, len)) {
		if (*arg == '-' && strlen(err) + 64 < len)
			strcat(err, " (a mode starting with '-' may be a misplaced option)");
		return -1;
	}
	o->jp = arg;
	return 0;
}

static int set_tree(struct options *o, const struct opt_row *r, const char *arg, char *err,
		    size_t len)
{
	struct view_tree_opts to;

	(void)r;
	view_tree_opts_init(&to);
	if (view_tree_parse_arg(arg ? arg : "", &to, err, len))
		return -1;
	o->tree = arg ? arg : "";
	return 0;
}

static int show_help(struct options *o, const struct opt_row *r, const char *arg, char *err,
		     size_t len)
{
	(void)o, (void)r, (void)arg, (void)err, (void)len;
	options_usage(stdout);
	return OPT_EXIT;
}

static int show_version(struct options *o, const struct opt_row *r, const char *arg, char *err,
			size_t len)
{
	(void)o, (void)r, (void)arg, (void)err, (void)len;
	options_version(stdout);
	return OPT_EXIT;
}

/* -- The table ------------------------------------------------------------- */

#define N(name)	name, "--" name
#define OWN	0	/* the validator stores to fields of its own */
#define NONE	no_argument
#define REQ	required_argument
#define OPT	optional_argument

const struct opt_row options_rows[] = {
	{ "pid", "-p/--pid", 'p', REQ, "PID[,PID]", set_pids,
	  "profile these processes (repeatable; a thread id\nmeans its process)", .at = OWN },
	{ "duration", "-d/--duration", 'd', REQ, "DUR", set_duration,
	  "stop after DUR: seconds, or 500ms, 5s, 2m, 1h\n(default: Ctrl-C, SIGTERM or exit)",
	  .at = AT(duration) },
	{ "frequency", "-F/--frequency", 'F', REQ, "HZ", set_frequency,
	  "samples per second per CPU (default 99)", .at = AT(hz), .min = 1, .max = MAX_HZ },
	{ "event", "-e/--event", 'e', REQ, "EV", set_event,
	  "what to profile: cpu (on-CPU samples, default), off-cpu\n"
	  "(time threads spend switched out, by the Lua stack they\n"
	  "left from), wall (both: shares of elapsed time) or\n"
	  "alloc (bytes the VM allocates, by Lua stack);\n"
	  "--continuous also takes cpu,off-cpu (two profile types)", .at = OWN,
	  .choices = "cpu off-cpu wall alloc cpu,off-cpu" },
	{ N("min-block"), 0, REQ, "T", set_min_block,
	  "off-cpu/wall: switches out shorter than T are only\n"
	  "counted (default 10us; 500ns, 20us, 2ms)", .at = OWN },
	{ N("off-cpu-rate"), 0, REQ, "P", options_set_off_cpu_rate,
	  "off-cpu/wall: walk a switch out with probability P,\n"
	  "its time weighed by 1/P (0.1, 1/20; 1: all).  auto\n"
	  "(default): all up to 1000/s per CPU, then 1 in 2^k",
	  .at = OWN },
	{ "output", "-o/--output", 'o', REQ, "FILE", options_set_string,
	  "write the report to FILE (default stdout)", .at = AT(output) },
	{ "format", "-f/--format", 'f', REQ, "FMT", set_format,
	  "text, folded, svg, pprof, speedscope or otlp; timelines (each sample in time,\n"
	  "per thread): chrome (Perfetto, chrome://tracing) or speedscope-evented\n"
	  "(default: from -o's extension, else text)", .at = OWN,
	  .choices = "text folded svg pprof speedscope otlp chrome speedscope-evented" },
	{ N("alloc-every"), 0, REQ, "SIZE", set_alloc_every,
	  "-e alloc: one sample per SIZE bytes allocated\n(default 16K; 512K with --alloc-exact)", .at = OWN },
	{ N("alloc-duty"), 0, REQ, "PCT", options_set_alloc_duty,
	  "-e alloc: attach the allocator probe for random windows\n"
	  "adding up to PCT of the time, bytes scaled up to match\n"
	  "(default " LBP_ALLOC_DUTY_TEXT ")", .at = OWN },
	{ N("alloc-exact"), 0, NONE, NULL, set_flag,
	  "-e alloc: probe every allocation all the time\n(the target runs 9-22x slower)",
	  .at = AT(alloc_exact) },
	{ N("alloc-exact-in-production"), 0, NONE, NULL, set_flag,
	  "allow --alloc-exact with --continuous", .at = AT(alloc_exact_prod) },
	{ N("jp"), 0, REQ, "MODE", set_jp,
	  "luajit -jp view letters: f F l p N -N s v z r m<N> a A G i<ms>\n"
	  "(default: f, depth 1, m3)", .at = OWN, .flags = OPTF_LETTERS,
	  .choices = "f F l p s v z r a A G" },
	{ N("vmstate-detail"), 0, NONE, NULL, set_flag,
	  "with v: split J into exit/record/optimize/assemble\nand N by trace",
	  .at = AT(vmstate_detail) },
	{ N("tree"), 0, OPT, "self", set_tree, "call tree with inclusive (or self) shares", .at = OWN,
	  .choices = "self" },
	{ N("tree-depth"), 0, REQ, "N", set_count, "limit the tree to N levels",
	  .at = AT(tree_depth), .min = 1, .max = 1000 },
	{ N("focus"), 0, REQ, "NAME", options_set_string, "keep only stacks through function NAME",
	  .at = AT(focus) },
	{ N("jit"), 0, NONE, NULL, set_flag,
	  "add the JIT health report: per hot function its compiled,\n"
	  "interpreted and JIT-compiler shares, traces, trace aborts\n"
	  "(luajit -jv's text) and blacklisted loops", .at = AT(jit) },
	{ N("jit-hot"), 0, REQ, "PCT", set_percent,
	  "--jit: a function is hot from PCT% of the samples (default 1)",
	  .at = AT(jit_hot) },
	{ N("fail-if-interpreted"), 0, REQ, "PCT", set_percent,
	  "--jit: exit 3 when a hot function runs interpreted more\n"
	  "than PCT% of its samples, naming it and its abort reasons",
	  .at = AT(fail_interp) },
	{ N("lua-only"), 0, NONE, NULL, set_flag,
	  "drop samples where the thread ran no Lua ([host])", .at = AT(lua_only) },
	{ N("keep-root"), 0, NONE, NULL, set_flag,
	  "keep the host's C entry frame at the bottom of stacks", .at = AT(keep_root) },
	{ N("native"), 0, NONE, NULL, set_flag,
	  "whole stacks: the host's C frames, C called from Lua\n"
	  "(FFI, C functions) and callbacks, interleaved with the\n"
	  "Lua frames; unwound by .eh_frame from a copy of each\n"
	  "sample's stack (docs/native.md)", .at = AT(native) },
	{ N("no-stitch"), 0, NONE, NULL, set_flag,
	  "a coroutine's stack ends at its own bottom, as in jit.p\n"
	  "(default: it continues under the code that resumed it)", .at = AT(no_stitch) },
	{ N("per-thread"), 0, NONE, NULL, set_flag,
	  "one report section per thread (pprof always has\na tid label)", .at = AT(per_thread) },
	{ N("per-process"), 0, NONE, NULL, set_flag,
	  "one section (flame graph root) per process; by default\n"
	  "a program's processes (its forks running the same\n"
	  "executable, as nginx's workers) merge; pprof always\n"
	  "has a pid label", .at = AT(per_process) },
	{ N("vmstate-frames"), 0, NONE, NULL, set_flag,
	  "folded/svg: add the VM state as a leaf frame", .at = AT(vmstate_frames) },
	{ N("zone-frames"), 0, NONE, NULL, set_flag, "folded/svg: add the jit.zone as a frame",
	  .at = AT(zone_frames) },
	{ N("icicle"), 0, NONE, NULL, set_flag, "svg: draw the root at the top", .at = AT(icicle) },
	{ N("max-stacks"), 0, REQ, "N", set_count, "BPF stack map entries (default 4096)",
	  .at = AT(max_stacks), .min = 2, .max = 1 << 20 },
	{ N("max-counts"), 0, REQ, "N", set_count, "BPF count map entries (default 16384)",
	  .at = AT(max_counts), .min = 2, .max = 1 << 22 },
	{ N("max-frames"), 0, REQ, "N", set_count,
	  "Lua frames walked per sample (default and max 256)",
	  .at = AT(max_frames), .min = 1, .max = 256 },
	{ N("heap"), 0, NONE, NULL, set_flag,
	  "census of the Lua heap of -p PID (objects, bytes and\n"
	  "reference paths, read from outside; no BPF); with -d,\n"
	  "two censuses DUR apart and what grew; with --continuous,\n"
	  "a heap profile per process and interval as well", .at = AT(heap) },
	{ N("locals"), 0, NONE, NULL, set_flag,
	  "dump: each Lua frame's named locals with short values",
	  .at = AT(dump_locals) },
	{ N("json"), 0, NONE, NULL, set_flag, "dump: write JSON, for scripts", .at = AT(dump_json) },
	{ N("fail-if"), 0, REQ, "RULE", options_set_fail_if, "diff: exit 3 on a significant change "
	  "past RULE:\n'F:app.lua:render > +5' (points), 'total-cpu > +10%'", .at = OWN },
	{ N("confidence"), 0, REQ, "C", options_set_confidence,
	  "diff: the intervals' confidence (default 0.99)", .at = AT(confidence) },
	{ N("per-second"), 0, NONE, NULL, set_flag,
	  "diff: normalize by duration, not by total samples", .at = AT(per_second) },
	{ N("base-window"), 0, REQ, "FROM,TO", options_set_window, "diff DIR: BASE is DIR's profiles "
	  "starting in\n[FROM, TO): UTC 2026-01-31T12:00:00 or Unix seconds", .at = OWN },
	{ N("new-window"), 0, REQ, "FROM,TO", options_set_window, "diff DIR: NEW's window", .at = OWN },
	{ N("group"), 0, REQ, "REGEX", options_set_string,
	  "key samples by the first capture group of their outermost\n"
	  "frame whose chunk path matches; kong, apisix: presets", .at = AT(group) },
	{ N("by"), 0, REQ, "KEY", options_set_string,
	  "key samples by their nginx request's uri, phase,\n"
	  "location, host or method (with --group: both)", .at = AT(by) },
	{ N("uri-template"), 0, REQ, "MODE", options_set_string,
	  "nginx request labels: auto folds ids in paths to :id\n"
	  "(the default with --continuous), none keeps them", .at = AT(uri_template) },
	{ N("sort"), 0, REQ, "KEY", options_set_string,
	  "dump: age puts the oldest nginx request first", .at = AT(dump_sort) },
	{ N("with-query"), 0, NONE, NULL, set_flag,
	  "nginx requests: keep the URI's query (it may hold tokens)", .at = AT(with_query) },
	{ "all", "-a/--all", 'a', NONE, NULL, set_flag,
	  "every LuaJIT process on the host, including new ones", .at = AT(all) },
	{ N("delay"), 0, REQ, "DUR", set_duration,
	  "top: time between screen updates (default 1s; 500ms, 2)",
	  .at = AT(top_delay) },

	{ N("continuous"), 0, NONE, NULL, set_flag,
	  "profile until stopped, one delta profile per interval",
	  .at = AT(continuous), .flags = OPTF_SECTION_AGENT },
	{ N("every"), 0, REQ, "DUR", set_duration, "interval length (default 10s; also 30, 1m)",
	  .at = AT(every), .min = 1, .flags = OPTF_CONTINUOUS },
	{ N("out-dir"), 0, REQ, "DIR", options_set_string, "rolling gzip pprof files (default sink)",
	  .at = AT(out_dir), .flags = OPTF_CONTINUOUS },
	{ N("retain-count"), 0, REQ, "N", set_count,
	  "keep at most N files in --out-dir (default 100)",
	  .at = AT(retain_count), .min = 1, .max = 1000000, .flags = OPTF_CONTINUOUS },
	{ N("retain-size"), 0, REQ, "SZ", set_size,
	  "keep at most SZ bytes in --out-dir (e.g. 100M)",
	  .at = AT(retain_bytes), .flags = OPTF_CONTINUOUS },
	{ N("push"), 0, REQ, "URL", options_set_push, "send each interval to Pyroscope or Parca at URL",
	  .at = OWN, .flags = OPTF_CONTINUOUS },
	{ N("push-api"), 0, REQ, "API", options_set_push_api,
	  "ingest (Pyroscope /ingest, default), push (Pyroscope\n"
	  "Push API), parca (/profiles/writeraw) or otlp\n"
	  "(OpenTelemetry /v1development/profiles)", .at = OWN, .flags = OPTF_CONTINUOUS,
	  .choices = "ingest push parca otlp" },
	{ N("service"), 0, REQ, "NAME", options_set_service, "service name, or a template per process:\n"
	  "{comm} (default) {pid} {container} {container_id}\n{pod} {namespace} {pod_uid} {label:K}",
	  .at = AT(service), .flags = OPTF_CONTINUOUS },
	{ N("label"), 0, REQ, "K=V", options_set_label, "extra label on every profile (repeatable)",
	  .at = OWN, .flags = OPTF_CONTINUOUS },
	{ N("label-from"), 0, REQ, "PROG", options_set_label_from,
	  "labels per process from PROG PID CONTAINER_ID:\nkey=value lines (container, pod, namespace name those)",
	  .at = AT(label_from) },
	{ N("tenant"), 0, REQ, "ID", options_set_header_value, "X-Scope-OrgID header",
	  .at = AT(tenant), .flags = OPTF_CONTINUOUS },
	{ N("auth-token-file"), 0, REQ, "F", options_set_string, "bearer token, read from F",
	  .at = AT(auth_token_file), .flags = OPTF_CONTINUOUS },
	{ N("basic-auth-file"), 0, REQ, "F", options_set_string, "user:password, read from F",
	  .at = AT(basic_auth_file), .flags = OPTF_CONTINUOUS },
	{ N("spool-dir"), 0, REQ, "DIR", options_set_string,
	  "keep undelivered profiles here while the backend is down",
	  .at = AT(spool_dir), .flags = OPTF_CONTINUOUS },
	{ N("spool-size"), 0, REQ, "SZ", set_size,
	  "spool limit (default 64M); beyond it drops are counted",
	  .at = AT(spool_bytes), .flags = OPTF_CONTINUOUS },
	{ N("log-file"), 0, REQ, "F", options_set_string, "log to F instead of stderr",
	  .at = AT(log_file), .flags = OPTF_CONTINUOUS },

	{ "verbose", "-v/--verbose", 'v', NONE, NULL, set_flag,
	  "explain discovery; show libbpf's messages, walk counts",
	  .at = AT(verbose), .flags = OPTF_SECTION_GENERAL },
	{ N("check-kernel"), 0, NONE, NULL, set_flag,
	  "load every mode's BPF programs, print what this kernel's\n"
	  "verifier said of each (instructions, stack) and exit",
	  .at = AT(check_kernel) },
	{ N("version"), 0, NONE, NULL, show_version, "print the version and exit", .at = OWN },
	{ "help", "-h/--help", 'h', NONE, NULL, show_help, "this help", .at = OWN },
};
#define NROWS	(sizeof(options_rows) / sizeof(options_rows[0]))
const int options_nrows = NROWS;
