/* SPDX-License-Identifier: MIT */
/* Inside the targets module: the structs behind struct target and
 * struct targets, shared by its life cycle (targets.c) and its queries
 * (targets_query.c).  Not for other modules: they see opaque types. */
#ifndef LBP_TARGETS_INT_H
#define LBP_TARGETS_INT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/sampler_types.h"
#include "container/container.h"
#include "luajit/discover.h"

struct target {
	pid_t pid;
	char comm[32];
	char cwd[256];			/* for relative chunk names (annotations) */
	int pidfd;			/* readable once the process exits */
	bool exited;
	bool waiting;			/* no VM yet: rescanning */
	bool eager;			/* named by the user: rescanned every 2 ms at first */
	pid_t program;			/* the process its program started in (procfs.h) */
	struct container_ref ctr;	/* ctr.id "" when in no container */
	struct mem_reader *mem;
	struct lj_vm vms[LBP_MAX_VMS];
	struct symbolizer *sym[LBP_MAX_VMS];
	/* Revalidations in a row a VM failed: one is not enough to drop it. */
	unsigned char vm_misses[LBP_MAX_VMS];
	int nvms;
	/* On the heap: symbolizers keep a pointer to it, and a target moves
	 * when the array grows or another target is removed. */
	struct vmdef *vd;
	bool have_vd;
	bool warned_max_vms;
	uint64_t next_scan_ns;
	unsigned scans;
	unsigned scans_since_found;	/* looking for sibling VMs */
};

struct targets {
	struct target *t;
	int n, cap;
	struct collector *col;		/* NULL until attached */
	struct profile *prof;		/* where target names go */
	/* When VMs are next revalidated and forks looked for: once a
	 * second for all targets together (a per-set clock, so two sets
	 * never share it). */
	uint64_t next_check_ns;
	/* Unknown frames of symbolizers freed with their VMs: the summary
	 * keeps them. */
	uint64_t retired_unknown;
	const char *label_from;		/* --label-from's program, or NULL */
	volatile sig_atomic_t *stop;	/* ends VM scans early; NULL: none */
};

struct profile;

/* Names t in p: its comm, program and container (targets.c). */
void target_name_in(struct profile *p, const struct target *t);

#endif
