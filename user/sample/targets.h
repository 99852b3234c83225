/* The processes being profiled: their VMs (found at start and rescanned
 * later), a memory reader and symbolizers each, exit detection, and the
 * conversion of drained kernel samples into the profile model. */
#ifndef LBP_TARGETS_H
#define LBP_TARGETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "target/discover.h"
#include "model/profile.h"
#include "base/sampler_types.h"
#include "target/vmdef.h"

struct collector;
struct symbolizer;

struct target {
	pid_t pid;
	char comm[32];
	char cwd[256];			/* for relative chunk names (annotations) */
	int pidfd;			/* readable once the process exits */
	bool exited;
	bool waiting;			/* no VM yet: rescanning */
	bool eager;			/* named by the user: rescanned every 2 ms at first */
	struct mem_reader *mem;
	struct lj_vm vms[LBP_MAX_VMS];
	struct symbolizer *sym[LBP_MAX_VMS];
	int nvms;
	/* On the heap: symbolizers keep a pointer to it, and a target moves
	 * when the array grows or another target is removed. */
	struct vmdef *vd;
	bool have_vd;
	bool warned_max_vms;
	uint64_t next_scan_ns;
	unsigned scans;
};

struct targets {
	struct target *t;
	int n, cap;
	struct collector *col;
	bool lua_only;		/* drop [host] samples */
	bool keep_root;		/* keep the host's C entry at the bottom */
	bool no_stitch;		/* a coroutine's frames only, not its resumers' */
	struct profile *prof;	/* where drained samples go */
	uint64_t next_epoch_ns;	/* next prototype revalidation */
	/* Unknown frames of symbolizers freed with their VMs, and of frames
	 * whose VM was gone when drained: the summary keeps them. */
	uint64_t retired_unknown;
};

/* The target for pid, or NULL. */
struct target *targets_find(struct targets *ts, pid_t pid);

/* Starts profiling pid.  strict: refuse a process without a LuaJIT VM
 * (for -p); otherwise keep rescanning (for -- COMMAND).  Writes a
 * one-line reason on failure. */
int targets_add(struct targets *ts, pid_t pid, bool strict, char *err, size_t errlen);

/* Stops profiling pid and frees what it held (for exited processes in
 * long runs; their samples already drained stay in the profile). */
void targets_remove(struct targets *ts, pid_t pid);

/* Hands every target to the collector (targets added before it existed). */
void targets_attach(struct targets *ts, struct collector *col);

/* Opens a source file named by a chunk: relative to a target's working
 * directory, or absolute (through its root first).  For the a/A views. */
FILE *targets_open_source(const char *path, void *targets);

/* Rescans processes still without VMs, looks for jit.zone tables and
 * notices exits.  Returns the number of targets still running. */
int targets_poll(struct targets *ts, uint64_t now_ns);

/* Whether a running target is still waiting for its first VM. */
bool targets_waiting(const struct targets *ts);

/* Drains the collector into ts->prof (user/drain.c). */
int targets_drain(struct targets *ts);

void targets_free(struct targets *ts);

#endif
