/* --heap: find each process's VMs, walk their heaps, write the census
 * (and reference paths).  Reads target memory only; loads no BPF. */
#include "cli/heap_cmd.h"

#include <stdio.h>

#include "base/log.h"
#include "cli/options.h"
#include "model/heap_census.h"
#include "model/heap_paths.h"
#include "report/export.h"
#include "report/heap_paths_out.h"
#include "report/heap_text.h"
#include "report/output.h"
#include "target/discover.h"
#include "target/heap_walk.h"
#include "target/memory.h"

#define MAX_VMS		16
#define TOP_PATHS	20
#define TOP_OBJECTS	10

/* One VM: walk, count, print.  0, or -1 when its heap cannot be read. */
static int census_vm(FILE *f, enum out_format fmt, pid_t pid, struct mem_reader *mem,
		     const struct lj_vm *vm)
{
	struct heap_snapshot snap;
	struct heap_census c;
	struct heap_paths hp;
	char why[160];

	if (heap_walk(mem, vm->layout, vm->g, &snap, why, sizeof(why))) {
		log_error("PID %d: %s", (int)pid, why);
		return -1;
	}
	if (heap_paths_build(&snap, &hp)) {
		log_error("PID %d: out of memory for the reference paths", (int)pid);
		heap_snapshot_free(&snap);
		return -1;
	}
	if (fmt == FMT_FOLDED) {
		snprintf(why, sizeof(why), "heap of PID %d", (int)pid);
		heap_paths_folded(f, &hp, why);
	} else {
		heap_census_count(&snap, &c);
		heap_text_census(f, pid, vm->layout->name, &c, &snap.st);
		fputc('\n', f);
		heap_paths_text(f, &hp, TOP_PATHS);
		fputc('\n', f);
		heap_largest_text(f, &snap, &hp, TOP_OBJECTS);
	}
	heap_paths_free(&hp);
	heap_snapshot_free(&snap);
	return 0;
}

static int census_pid(FILE *f, enum out_format fmt, pid_t pid)
{
	struct lj_vm vms[MAX_VMS];
	struct discover_report rep;
	struct mem_reader *mem = mem_open_pid(pid);
	enum discover_result res;
	int rc = 0;

	if (!mem)
		return -1;
	res = discover_vms(pid, mem, vms, MAX_VMS, &rep);
	if (res != DISCOVER_FOUND) {
		log_error("PID %d: %s", (int)pid,
			  res == DISCOVER_GONE ? "no such process (or not readable)" :
			  rep.unsupported[0] ? rep.unsupported :
			  res == DISCOVER_UNRECOGNISED ? "a LuaJIT VM of an unknown layout" :
			  "no LuaJIT VM found");
		mem_close(mem);
		return -1;
	}
	for (int i = 0; i < rep.nvms; i++)
		if (census_vm(f, fmt, pid, mem, &vms[i]))
			rc = -1;
	mem_close(mem);
	return rc;
}

int heap_cmd_run(const struct options *o)
{
	struct output out = { 0 };
	char err[256];
	int rc = 0;

	if (o->fmt != FMT_TEXT && o->fmt != FMT_FOLDED) {
		log_error("--heap writes text or folded, not %s", out_format_name(o->fmt));
		return 2;
	}
	if (output_open(&out, o->output, err, sizeof(err))) {
		log_error("%s", err);
		return 1;
	}
	for (int i = 0; i < o->npids; i++)
		if (census_pid(out.f, o->fmt, o->pids[i]))
			rc = 1;
	if (output_commit(&out, err, sizeof(err))) {
		log_error("%s", err);
		return 1;
	}
	return rc;
}
