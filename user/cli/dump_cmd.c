// SPDX-License-Identifier: MIT
/* dump: find each process's VMs, walk their heaps for thread objects,
 * read and name every stack (symbolize/dump_build.c), write text or
 * JSON.  Reads target memory only; loads no BPF. */
#include "cli/dump_cmd.h"

#include <stdio.h>

#include "base/log.h"
#include "cli/options.h"
#include "model/dump.h"
#include "report/dump_out.h"
#include "report/output.h"
#include "symbolize/dump_build.h"
#include "symbolize/symbolize.h"
#include "luajit/discover.h"
#include "heap/heap_walk.h"
#include "proc/memory.h"

#define MAX_VMS		16
#define WALK_SECS	10.0	/* the heap walk's time budget per VM */
#define STRING_WIDTH	40

/* One VM: walk, read, name, write.  -1 when its heap cannot be read. */
static int dump_vm(FILE *f, const struct options *o, pid_t pid, struct mem_reader *mem,
		   const struct lj_vm *vm, bool *first, volatile sig_atomic_t *stop)
{
	struct dump_opts dopts = { .locals = o->dump_locals, .width = STRING_WIDTH, .stop = stop,
				   .with_query = o->with_query, .sort_age = o->dump_sort != NULL };
	struct heap_limits lim;
	struct heap_snapshot snap;
	struct symbolizer *sym;
	struct dump d;
	char why[160];

	heap_limits_for(pid, WALK_SECS, stop, &lim);
	lim.roots_only = true;
	if (heap_walk_limited(mem, vm->layout, vm->g, &lim, &snap, why, sizeof(why))) {
		log_error("PID %d: %s", (int)pid, why);
		return -1;
	}
	sym = sym_new(mem, vm->layout, NULL);
	if (!sym) {
		heap_snapshot_free(&snap);
		log_error("PID %d: out of memory", (int)pid);
		return -1;
	}
	sym_set_vm(sym, vm->g);
	sym_set_pid(sym, pid);
	dump_init(&d, pid, vm->layout->name, vm->g);
	dump_build(sym, &snap, &dopts, &d);
	if (d.requests_refused)
		log_warn("PID %d: %s", (int)pid, d.requests_refused);
	if (d.loss.walk_ended)
		log_warn("PID %d: the heap walk stopped early (%s): coroutines may be missing",
			 (int)pid, d.loss.walk_why);
	if (d.loss.read_why[0])
		log_warn("PID %d: reading stopped early (%s): %llu coroutines not read", (int)pid,
			 d.loss.read_why, (unsigned long long)d.loss.not_read);
	if (d.loss.cycles)
		log_warn("PID %d: the heap's object list led back to an object already seen: "
			 "coroutines after it are missing", (int)pid);
	if (d.loss.threads_dropped || d.loss.frames_dropped)
		log_warn("PID %d: the dump's caps were reached: %llu coroutines and %llu frames "
			 "and locals not kept", (int)pid, (unsigned long long)d.loss.threads_dropped,
			 (unsigned long long)d.loss.frames_dropped);
	if (o->dump_json) {
		fputs(*first ? "" : ",\n", f);
		dump_json(f, &d);
	} else {
		fputs(*first ? "" : "\n", f);
		dump_text(f, &d);
	}
	*first = false;
	dump_free(&d);
	sym_free(sym);
	heap_snapshot_free(&snap);
	return 0;
}

static int dump_pid(FILE *f, const struct options *o, pid_t pid, bool *first,
		    volatile sig_atomic_t *stop)
{
	struct lj_vm vms[MAX_VMS];
	struct discover_report rep;
	struct mem_reader *mem = discover_open(pid, vms, MAX_VMS, &rep);
	int rc = 0;

	if (!mem)
		return -1;
	for (int i = 0; i < rep.nvms; i++)
		if (dump_vm(f, o, pid, mem, &vms[i], first, stop))
			rc = -1;
	mem_close(mem);
	return rc;
}

int dump_cmd_run(const struct options *o, volatile sig_atomic_t *stop)
{
	struct output out = { 0 };
	bool first = true;
	char err[256];
	int rc = 0;

	if (output_open(&out, o->output, err, sizeof(err))) {
		log_error("%s", err);
		return 1;
	}
	if (o->dump_json)
		fputs("{\"vms\":[", out.f);
	for (int i = 0; i < o->npids; i++)
		if (dump_pid(out.f, o, o->pids[i], &first, stop))
			rc = 1;
	if (o->dump_json)
		fputs("]}\n", out.f);
	if (output_commit(&out, err, sizeof(err))) {
		log_error("%s", err);
		return 1;
	}
	/* What a signal left is written, but it is not the whole dump. */
	if (*stop) {
		log_warn("stopped by signal %d: the dump is incomplete", (int)*stop);
		return 128 + (int)*stop;
	}
	return rc;
}
