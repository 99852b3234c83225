// SPDX-License-Identifier: MIT
/* Queries on profiled processes: what the session, the drain and the
 * reports ask of a target.  The life cycle is targets.c's. */
#define _GNU_SOURCE
#include "sample/targets.h"

#include <stdlib.h>

#include "sample/targets_int.h"
#include "symbolize/symbolize.h"

struct targets *targets_new(void)
{
	return calloc(1, sizeof(struct targets));
}

int targets_count(const struct targets *ts)
{
	return ts->n;
}

struct target *targets_at(struct targets *ts, int i)
{
	return i >= 0 && i < ts->n ? &ts->t[i] : NULL;
}

pid_t target_pid(const struct target *t)
{
	return t->pid;
}

const char *target_comm(const struct target *t)
{
	return t->comm;
}

bool target_exited(const struct target *t)
{
	return t->exited;
}

bool target_waiting(const struct target *t)
{
	return !t->exited && t->waiting;
}

int target_nvms(const struct target *t)
{
	return t->nvms;
}

struct symbolizer *target_vm(const struct target *t, uint64_t g, struct mem_reader **mem,
			     const struct lj_layout **layout)
{
	for (int v = 0; v < t->nvms; v++) {
		if (t->vms[v].g != g)
			continue;
		if (mem)
			*mem = t->mem;
		if (layout)
			*layout = t->vms[v].layout;
		return t->sym[v];
	}
	return NULL;
}

const struct lj_vm *target_vm_at(const struct target *t, int i, struct symbolizer **sym,
				 struct mem_reader **mem)
{
	*sym = i >= 0 && i < t->nvms ? t->sym[i] : NULL;
	*mem = t->mem;
	return i >= 0 && i < t->nvms ? &t->vms[i] : NULL;
}

void target_rescan_soon(struct target *t)
{
	t->scans = 0;
	t->next_scan_ns = 0;
}

void targets_set_profile(struct targets *ts, struct profile *p)
{
	ts->prof = p;
	for (int i = 0; p && i < ts->n; i++)
		target_name_in(p, &ts->t[i]);
}

void targets_next_epoch(struct targets *ts)
{
	for (int i = 0; i < ts->n; i++)
		for (int v = 0; v < ts->t[i].nvms; v++)
			sym_next_epoch(ts->t[i].sym[v]);
}

uint64_t targets_unknown_frames(const struct targets *ts)
{
	uint64_t n = ts->retired_unknown;

	for (int i = 0; i < ts->n; i++)
		for (int v = 0; v < ts->t[i].nvms; v++)
			n += sym_unknown_count(ts->t[i].sym[v]);
	return n;
}

void targets_set_label_from(struct targets *ts, const char *program)
{
	ts->label_from = program;
}

void targets_set_stop(struct targets *ts, volatile sig_atomic_t *stop)
{
	ts->stop = stop;
}
