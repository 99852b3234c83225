// SPDX-License-Identifier: MIT
/* --heap: find each process's VMs, walk their heaps, write the census
 * and reference paths; with -d SECS, two censuses SECS apart and what
 * grew between them.  Reads target memory only; loads no BPF. */
#include "cli/heap_cmd.h"

#include <stdio.h>
#include <time.h>

#include "base/log.h"
#include "cli/options.h"
#include "model/heap_census.h"
#include "model/heap_growth.h"
#include "model/heap_paths.h"
#include "report/export.h"
#include "report/heap_paths_out.h"
#include "report/heap_pprof.h"
#include "report/heap_svg.h"
#include "report/heap_text.h"
#include "report/output.h"
#include "luajit/discover.h"
#include "heap/heap_walk.h"
#include "proc/memory.h"

#define MAX_VMS		16
#define TOP_PATHS	20
#define TOP_OBJECTS	10

/* Growth as folded stacks: the paths that grew, weighted by bytes gained. */
static void growth_folded(FILE *f, const struct heap_growth *g, pid_t pid)
{
	for (size_t i = 0; i < g->n && g->rows[i].dbytes > 0; i++) {
		fprintf(f, "heap growth of PID %d;", (int)pid);
		for (const char *c = g->rows[i].name; *c; c++)
			fputc(*c == ';' ? ':' : *c, f);
		fprintf(f, " %lld\n", (long long)g->rows[i].dbytes);
	}
}

static void report(FILE *f, enum out_format fmt, pid_t pid, const struct lj_vm *vm,
		   const struct heap_snapshot *snap, const struct heap_paths *hp,
		   const struct heap_census *c, const struct heap_growth *g)
{
	char prefix[96];

	if (fmt == FMT_PPROF) {
		struct timespec now;

		clock_gettime(CLOCK_REALTIME, &now);
		if (heap_pprof_write(f, hp, c, (uint64_t)now.tv_sec * 1000000000ull +
					    (uint64_t)now.tv_nsec))
			log_error("PID %d: cannot write the pprof profile", (int)pid);
		return;
	}
	if (fmt == FMT_SVG) {
		snprintf(prefix, sizeof(prefix), "Lua heap of PID %d", (int)pid);
		if (heap_svg_write(f, hp, prefix))
			log_error("PID %d: cannot write the SVG", (int)pid);
		return;
	}
	if (fmt == FMT_FOLDED) {
		snprintf(prefix, sizeof(prefix), "heap of PID %d", (int)pid);
		if (g)
			growth_folded(f, g, pid);
		else
			heap_paths_folded(f, hp, prefix);
		return;
	}
	heap_text_census(f, pid, vm->layout->name, c, &snap->st);
	if (heap_walk_ended(snap, prefix, sizeof(prefix)))
		fprintf(f, "# The walk stopped early: %s; the census is partial\n", prefix);
	if (g) {
		fputc('\n', f);
		heap_text_growth(f, g, TOP_PATHS);
	}
	fputc('\n', f);
	heap_paths_text(f, hp, TOP_PATHS);
	fputc('\n', f);
	heap_largest_text(f, snap, hp, TOP_OBJECTS);
}

/* One VM: walk, count and print (with the growth since *before, if
 * given), or only keep the census in *keep.  -1 when the heap cannot be
 * read. */
static int census_vm(FILE *f, enum out_format fmt, pid_t pid, struct mem_reader *mem,
		     const struct lj_vm *vm, const struct heap_capture *before, double secs,
		     struct heap_capture *keep, volatile sig_atomic_t *stop)
{
	struct heap_limits lim;
	struct heap_snapshot snap;
	struct heap_census c;
	struct heap_paths hp;
	struct heap_capture now;
	struct heap_growth g;
	char why[160];

	heap_limits_for(pid, 0, stop, &lim);
	if (heap_walk_limited(mem, vm->layout, vm->g, &lim, &snap, why, sizeof(why))) {
		log_error("PID %d: %s", (int)pid, why);
		return -1;
	}
	log_verbose("PID %d: %zu objects walked, %llu pages read", (int)pid, snap.n,
		    (unsigned long long)snap.st.pages_read);
	if (heap_paths_build(&snap, &hp)) {
		log_error("PID %d: out of memory for the reference paths", (int)pid);
		heap_snapshot_free(&snap);
		return -1;
	}
	heap_census_count(&snap, &c);
	if (heap_walk_ended(&snap, why, sizeof(why)))
		log_warn("PID %d: the heap walk stopped early: %s; the census is partial",
			 (int)pid, why);
	if (snap.st.inconsistent)
		log_warn("PID %d: %llu objects claim more memory than the VM holds (%llu MiB) or memory another claims: not believed",
			 (int)pid, (unsigned long long)snap.st.inconsistent,
			 (unsigned long long)(snap.st.plausible >> 20));
	if (keep) {
		heap_capture_take(&hp, &c, keep);
	} else if (before && before->census.gc_total) {
		heap_capture_take(&hp, &c, &now);
		heap_growth_diff(before, &now, secs, &g);
		report(f, fmt, pid, vm, &snap, &hp, &c, &g);
		heap_growth_free(&g);
		heap_capture_free(&now);
	} else {
		report(f, fmt, pid, vm, &snap, &hp, &c, NULL);
	}
	heap_paths_free(&hp);
	heap_snapshot_free(&snap);
	return 0;
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Waits secs, or until *stop: returns the seconds waited. */
static double wait_for(double secs, volatile sig_atomic_t *stop, double since)
{
	double left;

	while (!*stop && (left = since + secs - mono_s()) > 0) {
		double nap = left < 0.2 ? left : 0.2;
		struct timespec ts = { 0, (long)(nap * 1e9) };

		nanosleep(&ts, NULL);	/* EINTR: the loop checks *stop */
	}
	return mono_s() - since;
}

static int census_pid(FILE *f, enum out_format fmt, pid_t pid, double secs,
		      volatile sig_atomic_t *stop)
{
	static struct heap_capture before[MAX_VMS];
	struct lj_vm vms[MAX_VMS];
	struct discover_report rep;
	struct mem_reader *mem = discover_open(pid, vms, MAX_VMS, &rep);
	int rc = 0;

	if (!mem)
		return -1;
	if (secs > 0) {
		double start = mono_s();

		for (int i = 0; i < rep.nvms; i++)
			census_vm(f, fmt, pid, mem, &vms[i], NULL, 0, &before[i], stop);
		secs = wait_for(secs, stop, start);
		if (*stop)
			log_info("PID %d: stopped after %.1f s: reporting the growth until now",
				 (int)pid, secs);
	}
	/* The census reported is taken even when asked to stop: it is what
	 * the run collected, and its own time budget bounds it. */
	for (int i = 0; i < rep.nvms; i++) {
		if (census_vm(f, fmt, pid, mem, &vms[i], secs > 0 ? &before[i] : NULL, secs, NULL,
			      secs > 0 ? NULL : stop))
			rc = -1;
		heap_capture_free(&before[i]);
	}
	mem_close(mem);
	return rc;
}

int heap_cmd_run(const struct options *o, volatile sig_atomic_t *stop)
{
	struct output out = { 0 };
	char err[256];
	int rc = 0;

	if (o->fmt == FMT_SPEEDSCOPE || out_format_timeline(o->fmt)) {
		log_error("--heap writes text, folded, svg or pprof, not %s", out_format_name(o->fmt));
		return 2;
	}
	if (output_open(&out, o->output, err, sizeof(err))) {
		log_error("%s", err);
		return 1;
	}
	for (int i = 0; i < o->npids; i++)
		if (census_pid(out.f, o->fmt, o->pids[i], o->duration, stop))
			rc = 1;
	if (output_commit(&out, err, sizeof(err))) {
		log_error("%s", err);
		return 1;
	}
	return rc;
}
