// SPDX-License-Identifier: MIT
/* What follows from the options once all are in: the settings one
 * option derives from another, and the checks against the host (thread
 * ids, the kernel's sample rate limit).  Nothing here refuses a command
 * line: it notes or warns, one line each. */
#include <ctype.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "base/log.h"
#include "cli/options_table.h"
#include "cli/optvalue.h"

/* Extensions that mean "text" to a user, so -o prof.txt is not warned
 * about; the other formats' names are report/export_format.c's. */
static const char *const text_extensions[] = { ".txt", ".text", ".log", ".out" };

/* -o's extension when it looks like one and implies no format (".png"),
 * else NULL.  Only letters count: "run.2024-05-01" or mktemp's
 * "lbp.x8Gq2" are names, not extensions.  A device, FIFO or directory is
 * never a format's file. */
static const char *unknown_extension(const char *path)
{
	const char *base = strrchr(path, '/'), *dot;
	struct stat st;

	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	if (!dot || dot == base || !dot[1])	/* none, or a hidden file's name */
		return NULL;
	for (const char *p = dot + 1; *p; p++)
		if (!isalpha((unsigned char)*p))
			return NULL;
	if (!stat(path, &st) && !S_ISREG(st.st_mode))
		return NULL;
	if (out_format_from_path(path) != FMT_TEXT)
		return NULL;
	for (size_t i = 0; i < sizeof(text_extensions) / sizeof(text_extensions[0]); i++)
		if (!strcasecmp(dot, text_extensions[i]))
			return NULL;
	return dot;
}

static void settle_format(struct options *o)
{
	const char *ext;

	if (o->format || !o->output || o->continuous)
		return;
	o->fmt = out_format_from_path(o->output);
	ext = unknown_extension(o->output);
	if (ext)
		log_warn("-o %s: no format is known by the extension '%s'; writing text "
			 "(give -f folded, svg, pprof, speedscope, otlp, chrome or "
			 "speedscope-evented, or -f text to silence this)",
			 o->output, ext);
}

/* -p TID of a thread that is not its process's main thread: the BPF
 * program filters on the process (tgid), so a thread id would match
 * nothing.  Profile its process, and say so. */
static void settle_threads(struct options *o, const char *proc_root)
{
	int n = 0;

	for (int i = 0; i < o->npids; i++) {
		pid_t pid = o->pids[i], tgid = proc_tgid(proc_root, pid);
		bool dup = false;

		if (tgid > 0 && tgid != pid) {
			log_info("PID %d is a thread of process %d: profiling process %d", (int)pid,
				 (int)tgid, (int)tgid);
			pid = tgid;
		}
		for (int j = 0; j < n; j++)
			dup |= o->pids[j] == pid;
		if (!dup)
			o->pids[n++] = pid;
	}
	o->npids = n;
}

/* perf_event_open refuses a frequency above this limit, and the kernel
 * lowers the limit itself when sampling interrupts take too long. */
static void check_rate(const struct options *o, const char *proc_root)
{
	unsigned long long max;

	if (proc_read_uint(proc_root, "sys/kernel/perf_event_max_sample_rate", &max) ||
	    o->hz <= max)
		return;
	log_warn("%u Hz is above the kernel's limit of %llu Hz "
		 "(/proc/sys/kernel/perf_event_max_sample_rate): sampling may fail to start",
		 o->hz, max);
}

void options_settle(struct options *o, const char *proc_root)
{
	o->jp_mode.vmstate_detail = o->vmstate_detail;
	/* jit.p's i<ms> sets the sampling interval, as -F does. */
	if (o->jp_mode.interval_ms)
		o->hz = o->jp_mode.interval_ms >= 1000 ? 1 : 1000 / o->jp_mode.interval_ms;
	settle_format(o);
	settle_threads(o, proc_root);
	check_rate(o, proc_root);
}
