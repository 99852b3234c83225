/* --heap: find each process's VMs, walk their heaps, write the census
 * (and reference paths).  Reads target memory only; loads no BPF. */
#include "cli/heap_cmd.h"

#include <stdio.h>

#include "base/log.h"
#include "cli/options.h"
#include "model/heap_census.h"
#include "report/heap_text.h"
#include "report/output.h"
#include "target/discover.h"
#include "target/heap_walk.h"
#include "target/memory.h"

#define MAX_VMS	16

/* One VM: walk, count, print.  0, or -1 when its heap cannot be read. */
static int census_vm(FILE *f, pid_t pid, struct mem_reader *mem, const struct lj_vm *vm)
{
	struct heap_snapshot snap;
	struct heap_census c;
	char why[160];

	if (heap_walk(mem, vm->layout, vm->g, &snap, why, sizeof(why))) {
		log_error("PID %d: %s", (int)pid, why);
		return -1;
	}
	heap_census_count(&snap, &c);
	heap_text_census(f, pid, vm->layout->name, &c, &snap.st);
	heap_snapshot_free(&snap);
	return 0;
}

static int census_pid(FILE *f, pid_t pid)
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
		if (census_vm(f, pid, mem, &vms[i]))
			rc = -1;
	mem_close(mem);
	return rc;
}

int heap_cmd_run(const struct options *o)
{
	struct output out = { 0 };
	char err[256];
	int rc = 0;

	if (output_open(&out, o->output, err, sizeof(err))) {
		log_error("%s", err);
		return 1;
	}
	for (int i = 0; i < o->npids; i++)
		if (census_pid(out.f, o->pids[i]))
			rc = 1;
	if (output_commit(&out, err, sizeof(err))) {
		log_error("%s", err);
		return 1;
	}
	return rc;
}
