/* SPDX-License-Identifier: MIT */
/* Command-line options: one table (options.c) gives each option its
 * names, argument, help line and validator; -h is generated from it.
 * Everything is checked here, before anything is attached or loaded:
 * a bad value is one line on stderr and OPTIONS_ERROR (exit 2). */
#ifndef LBP_OPTIONS_H
#define LBP_OPTIONS_H

#include "cli/commands.h"
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "model/profile.h"
#include "report/export.h"
#include "report/jpmode.h"
#include "ship/push.h"

#define MAX_PIDS 256
#define OPTIONS_MAX_RULES 32

struct options {
	pid_t pids[MAX_PIDS];
	int npids;
	double duration;	/* seconds; 0 = until Ctrl-C / SIGTERM / exit */
	unsigned hz;
	bool hz_given;
	enum profile_event event;	/* -e: cpu (default), off-cpu, wall or alloc */
	/* -e cpu,off-cpu (--continuous only): event is PROFILE_WALL, whose
	 * CPU and off-CPU halves are shipped as two profile types. */
	bool event_split;
	unsigned long long min_block_ns;	/* off-CPU blocks shorter are only counted */
	const char *output;	/* NULL = stdout */
	const char *format;	/* NULL = from the output name, else text */
	const char *jp;		/* jit.p mode string */
	struct jp_mode jp_mode;	/* ... parsed, with --vmstate-detail */
	enum out_format fmt;	/* -f, else from -o's name, else text */
	bool lua_only;
	bool keep_root;		/* keep the host's C entry frame at the bottom */
	bool per_thread;	/* text views: one section per thread */
	bool no_stitch;		/* coroutines not under their resumer */
	bool native;		/* --native: native frames with the Lua ones */
	bool per_process;	/* views and flame graphs: one per process, not program */
	bool verbose;
	bool vmstate_detail;
	bool vmstate_frames;	/* folded/svg: a VM state frame at the leaf */
	bool zone_frames;	/* folded/svg: a zone frame under the root */
	bool icicle;
	const char *tree;	/* NULL = no tree, else the --tree argument ("" for none) */
	int tree_depth;
	const char *focus;
	uint32_t max_stacks, max_counts, max_frames;
	char **command;		/* -- COMMAND ARGS, NULL-terminated */
	bool jit;		/* --jit: the JIT health report */
	double jit_hot;		/* --jit-hot: share of samples that makes code hot */
	double fail_interp;	/* --fail-if-interpreted: < 0 off */
	unsigned long long alloc_every;	/* -e alloc: bytes per sample, 0: options_alloc_every */
	double alloc_duty;	/* -e alloc: share of time the probe is attached */
	bool alloc_exact;	/* --alloc-exact: attached all the time */
	bool alloc_exact_prod;	/* --alloc-exact-in-production: even with --continuous */
	double offcpu_rate;	/* off-CPU: share of switches out walked, (0, 1]; 0: auto */

	/* The subcommand (cli/commands.h): its word, else an alias
	 * option (--heap, --check-kernel), else record. */
	enum command_id cmd;
	/* luabpfprof top: a live table instead of a report. */
	bool top;
	double top_delay;	/* --delay: seconds between screen updates */

	/* System-wide and continuous profiling. */
	bool check_kernel;	/* --check-kernel: load each mode's programs, report, exit */
	bool heap;		/* --heap: a heap census instead of a CPU profile */
	bool dump;		/* `dump`: every coroutine's stack, at once */
	bool dump_locals;	/* dump --locals */
	bool dump_json;		/* dump --json */
	/* `diff BASE NEW`: two profiles read back and compared; no target. */
	bool diff;
	char **diff_paths;	/* the operands: BASE NEW, or one directory with windows */
	int ndiff_paths;
	const char *fail_if[OPTIONS_MAX_RULES];	/* --fail-if, checked by diff_rule_parse */
	int nfail_if;
	double confidence;	/* --confidence (default 0.99) */
	bool per_second;	/* --per-second: shares of time, not of samples */
	/* --base-window, --new-window: [from, to) in CLOCK_REALTIME ns; to 0: none. */
	unsigned long long window[2][2];
	const char *dump_sort;	/* dump --sort: "age" or NULL */
	const char *group;	/* --group REGEX or preset (model/group.h), NULL */
	bool with_query;	/* --with-query: nginx request URIs keep their query */
	const char *by;		/* --by KEY: uri, phase, ... (model/reqlabel.h), NULL */
	const char *uri_template;	/* --uri-template auto|none, NULL: the default */
	/* Settled: --by's field (-1 none), --uri-template's mode (auto by
	 * default with --continuous, whose labels go to a backend). */
	int by_field, uri_template_mode;
	bool all;		/* -a: every LuaJIT process on the host */
	bool continuous;
	double every;		/* seconds per interval (default 10) */
	const char *out_dir;	/* rolling pprof files (default sink) */
	unsigned retain_count;	/* files kept in out_dir (0 = no limit) */
	unsigned long long retain_bytes;
	const char *push_url;
	const char *push_api;	/* "ingest" (default), "push" or "parca" */
	enum push_api push_api_id;	/* ... parsed */
	const char *service;	/* service name; NULL = per process comm */
	const char *label_from;	/* --label-from PROGRAM */
	const char *labels[32];	/* "k=v" */
	int nlabels;
	const char *tenant;
	const char *auth_token_file;
	const char *basic_auth_file;
	const char *spool_dir;
	unsigned long long spool_bytes;
	const char *log_file;
};

enum options_result { OPTIONS_OK, OPTIONS_EXIT_OK, OPTIONS_ERROR };

/* Parses argv; prints usage for -h, the version for --version, and a
 * one-line error otherwise.  Warnings (an -o name that implies no format,
 * a rate above the kernel's limit) and notes (-p naming a thread) are one
 * line each on stderr. */
enum options_result options_parse(int argc, char **argv, struct options *o);

/* --alloc-exact: one warning saying how much slower the target will run
 * (options_event.c); nothing otherwise. */
void options_warn_alloc_exact(const struct options *o);

/* -e alloc's bytes per sample: --alloc-every, else 16 KiB in windows (they
 * see a few percent of the bytes) and 512 KiB for --alloc-exact. */
unsigned long long options_alloc_every(const struct options *o);

/* The same, reading the host's facts (thread groups, the kernel's sample
 * rate limit) under proc_root instead of /proc: for tests. */
enum options_result options_parse_at(int argc, char **argv, struct options *o,
				     const char *proc_root);

/* Picks the subcommand id and keeps the older flags in step with it. */
void command_select(struct options *o, enum command_id id);
/* After parsing: an alias option (--heap, --check-kernel) picks its
 * command when no word did. */
void command_resolve(struct options *o);

#endif
