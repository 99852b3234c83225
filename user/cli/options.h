/* Command-line options: parsing and validation only. */
#ifndef LBP_OPTIONS_H
#define LBP_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define MAX_PIDS 256

struct options {
	pid_t pids[MAX_PIDS];
	int npids;
	double duration;	/* seconds; 0 = until Ctrl-C / SIGTERM / exit */
	unsigned hz;
	bool hz_given;
	const char *output;	/* NULL = stdout */
	const char *format;	/* NULL = from the output name, else text */
	const char *jp;		/* jit.p mode string */
	bool lua_only;
	bool per_thread;	/* text views: one section per thread */
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

	/* System-wide and continuous profiling. */
	bool all;		/* -a: every LuaJIT process on the host */
	bool continuous;
	double every;		/* seconds per interval (default 10) */
	const char *out_dir;	/* rolling pprof files (default sink) */
	unsigned retain_count;	/* files kept in out_dir (0 = no limit) */
	unsigned long long retain_bytes;
	const char *push_url;
	const char *push_api;	/* "ingest" (default), "push" or "parca" */
	const char *service;	/* service name; NULL = per process comm */
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

/* Parses argv; prints usage for -h and a one-line error otherwise. */
enum options_result options_parse(int argc, char **argv, struct options *o);

/* Strict number parsing shared with tests: the whole string must be a
 * number in [min, max]. */
int parse_uint(const char *s, unsigned long long min, unsigned long long max,
	       unsigned long long *out);
int parse_seconds(const char *s, double *out);

#endif
