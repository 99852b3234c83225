// SPDX-License-Identifier: MIT
/* The checks of options that only make sense together, made once all
 * are in and before anything is loaded: one line each, naming the fix. */
#include <string.h>

#include "base/log.h"
#include "cli/options_table.h"

int options_check_combination(const struct options *o, const bool *given)
{
	if (o->check_kernel || o->diff)
		return 0;	/* they profile nothing (diff: options_check_diff) */
	if (!o->npids && !o->command && !o->all) {
		log_error("nothing to profile: give -p PID, -a or -- COMMAND (see -h)");
		return -1;
	}
	if ((o->npids > 0) + (o->command != NULL) + o->all > 1) {
		log_error("give only one of -p, -a and -- COMMAND");
		return -1;
	}
	for (int i = 0; i < options_nrows && !o->continuous; i++) {
		if (!given[i] || !(options_rows[i].flags & OPTF_CONTINUOUS))
			continue;
		if (!strcmp(options_rows[i].name, "every"))
			log_error("--every needs --continuous: a run without it makes one profile "
				  "(use -d to end it)");
		else
			log_error("--%s needs --continuous", options_rows[i].name);
		return -1;
	}
	for (int i = 0; i < options_nrows; i++) {
		const char *name = options_rows[i].name;

		if (!given[i])
			continue;
		if (o->event != PROFILE_ALLOC &&
		    (!strcmp(name, "alloc-every") || !strcmp(name, "alloc-duty"))) {
			log_error("--%s needs -e alloc", name);
			return -1;
		}
		if (!strcmp(name, "alloc-duty") && o->alloc_exact) {
			log_error("--alloc-duty samples windows of time, --alloc-exact all of it: give one");
			return -1;
		}
		if (!strcmp(name, "off-cpu-rate") && o->event != PROFILE_OFFCPU &&
		    o->event != PROFILE_WALL) {
			log_error("--off-cpu-rate needs -e off-cpu, -e wall or -e cpu,off-cpu");
			return -1;
		}
	}
	if ((o->dump_locals || o->dump_json || o->dump_sort || o->with_query) && !o->dump) {
		log_error("--locals, --json, --sort and --with-query go with dump: luabpfprof dump -p PID --locals");
		return -1;
	}
	if (o->dump_sort && strcmp(o->dump_sort, "age")) {
		log_error("unknown --sort key '%s': use age", o->dump_sort);
		return -1;
	}
	if (o->dump && (!o->npids || o->heap || o->continuous || o->event != PROFILE_CPU)) {
		log_error("dump reads the coroutines of -p PID once: give it -p and no --heap, -e or --continuous");
		return -1;
	}
	if (options_check_alloc_exact(o))
		return -1;
	if (o->heap && o->event != PROFILE_CPU) {
		log_error("--heap is a census of its own: give it without -e");
		return -1;
	}
	if (o->heap && !o->continuous && !o->npids) {
		log_error("--heap needs -p PID (or --continuous, for a heap profile per interval)");
		return -1;
	}
	/* --native copies the stack of cpu-clock samples (bpf/native.bpf.h). */
	if (o->native && (o->heap || o->jit || o->event == PROFILE_ALLOC ||
			  o->event == PROFILE_OFFCPU)) {
		log_error("--native adds native frames to CPU samples: give it without %s",
			  o->heap ? "--heap" : o->jit ? "--jit" :
			  o->event == PROFILE_ALLOC ? "-e alloc" : "-e off-cpu (-e wall has CPU samples)");
		return -1;
	}
	if ((o->fail_interp >= 0 || o->jit_hot != 1.0) && !o->jit) {
		log_error("--fail-if-interpreted and --jit-hot need --jit");
		return -1;
	}
	if (out_format_timeline(o->fmt) && o->continuous) {
		log_error("-f %s is one timeline of the whole run: it cannot go with --continuous",
			  out_format_name(o->fmt));
		return -1;
	}
	if (o->jit && o->continuous) {
		log_error("--jit makes one report at the end: it cannot go with --continuous");
		return -1;
	}
	if (o->auth_token_file && o->basic_auth_file) {
		log_error("give only one of --auth-token-file and --basic-auth-file");
		return -1;
	}
	if (o->continuous && !o->push_url && !o->out_dir) {
		log_error("--continuous needs a sink: --out-dir DIR (rolling pprof files) or --push URL");
		return -1;
	}
	if (o->event_split && !o->continuous) {
		log_error("-e cpu,off-cpu makes two profiles: it needs --continuous (one profile of both: -e wall)");
		return -1;
	}
	/* The sinks know CPU, off-CPU and wall profile types (ship/push.c). */
	if (o->continuous && o->event == PROFILE_ALLOC) {
		log_error("-e alloc is not shipped yet: --continuous takes cpu, off-cpu, wall or cpu,off-cpu");
		return -1;
	}
	return 0;
}

/* `luabpfprof top` draws a live table: what writes or shapes a report
 * has no place there, and --delay none elsewhere. */
int options_check_top(const struct options *o, const bool *given)
{
	static const char *const report_only[] = {
		"output", "format", "jp", "tree", "tree-depth", "focus", "jit", "heap",
		"continuous", "check-kernel", "per-thread", "vmstate-frames", "zone-frames",
		"icicle",
	};

	for (int i = 0; i < options_nrows; i++) {
		const char *name = options_rows[i].name;

		if (!given[i])
			continue;
		if (!o->top && !strcmp(name, "delay")) {
			log_error("--delay is for luabpfprof top (a run without it makes one report)");
			return -1;
		}
		for (size_t j = 0; o->top && j < sizeof(report_only) / sizeof(report_only[0]); j++) {
			if (!strcmp(name, report_only[j])) {
				log_error("top draws a live table: give it without %s",
					  options_rows[i].display);
				return -1;
			}
		}
	}
	if (o->top && o->top_delay < 0.1) {
		log_error("invalid --delay: at least 100ms between updates");
		return -1;
	}
	return 0;
}
