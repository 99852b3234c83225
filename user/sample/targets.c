// SPDX-License-Identifier: MIT
/* Profiled processes: discovery, rescans, forks and exits. */
#define _GNU_SOURCE
#include "sample/targets.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "base/sampler_types.h"
#include "sample/alloc_sites.h"
#include "sample/collector.h"
#include "sample/reqlabels.h"
#include "sample/procfs.h"
#include "sample/targets_int.h"
#include "symbolize/symbolize.h"
#include "luajit/discover.h"
#include "container/label_hook.h"
#include "luajit/layout.h"
#include "proc/memory.h"
#include "proc/procmaps.h"
#include "luajit/vmdef.h"

#define RESCAN_FIRST_NS		20000000ull	/* waiting for a VM: then doubling */
#define RESCAN_FIRST_SCANS	25		/* scans at that pace: 0.5 s */
/* A process the user named (-p, -- COMMAND) may be a short program: it is
 * looked at every 2 ms for its first 0.2 s. */
#define RESCAN_EAGER_NS		2000000ull
#define RESCAN_EAGER_SCANS	100
#define RESCAN_WAIT_MAX_NS	1000000000ull
#define RESCAN_SLOW_NS		2000000000ull	/* looking for more VMs */
/* After the first VM: a host's threads create theirs one after another
 * (a scan between two luaL_newstate calls finds one), so look again at
 * RESCAN_FIRST_NS, doubling, this many times (to about 1.3 s). */
#define RESCAN_SIBLING_SCANS	6
#define CHECK_NS		1000000000ull	/* VMs revalidated, forks looked for */
#define VM_GONE_CHECKS		2	/* failed revalidations in a row that drop a VM */

/* ==== Life cycle ==== */

struct target *targets_find(struct targets *ts, pid_t pid)
{
	for (int i = 0; i < ts->n; i++)
		if (ts->t[i].pid == pid)
			return &ts->t[i];
	return NULL;
}

static void push_to_kernel(struct targets *ts, struct target *t)
{
	struct vm_slot slots[LBP_MAX_VMS];
	struct ngx_offsets ngx;

	if (!ts->col)
		return;
	for (int i = 0; i < t->nvms; i++)
		discover_vm_slot(&t->vms[i], &slots[i]);
	/* An nginx worker has one VM: its requests are read there. */
	reqlabels_offsets(t->nvms == 1 ? t->vms[0].layout->L_exdata : 0, &ngx);
	if (collector_set_proc(ts->col, t->pid, slots, t->nvms, &ngx))
		log_warn("PID %d: cannot update the BPF process map: %s", (int)t->pid,
			 strerror(errno));
	alloc_sites_attach(ts->col, t->pid, t->mem, t->vms, t->nvms);
}

/* Adds newly found VMs (keeping known ones) and their symbolizers. */
static void adopt_vms(struct target *t, const struct lj_vm *found, int n)
{
	for (int i = 0; i < n && t->nvms < LBP_MAX_VMS; i++) {
		bool known = false;

		for (int j = 0; j < t->nvms; j++)
			known |= t->vms[j].gg == found[i].gg;
		if (known)
			continue;
		if (!t->have_vd && found[i].elf_path[0]) {
			struct vmdef *vd = calloc(1, sizeof(*vd));

			t->have_vd = vd && !vmdef_find(t->pid, found[i].elf_path,
						       found[i].layout->openresty, vd);
			if (t->have_vd) {
				t->vd = vd;
				log_verbose("PID %d: fast-function names from %s", (int)t->pid,
					    t->vd->path);
			} else {
				free(vd);
				log_verbose("PID %d: no matching jit/vmdef.lua; fast-function names from the built-in table",
					    (int)t->pid);
			}
		}
		log_verbose("PID %d: VM at %#llx (%s), interpreter %#llx-%#llx in %s", (int)t->pid,
			    (unsigned long long)found[i].g, found[i].layout->name,
			    (unsigned long long)found[i].vm_lo, (unsigned long long)found[i].vm_hi,
			    found[i].elf_path[0] ? found[i].elf_path : "?");
		t->vms[t->nvms] = found[i];
		t->vms[t->nvms].zone_tab = discover_zone_table(t->mem, &found[i]);
		t->sym[t->nvms] = sym_new(t->mem, found[i].layout, t->have_vd ? t->vd : NULL);
		if (t->sym[t->nvms]) {
			sym_set_vm(t->sym[t->nvms], found[i].g);
			sym_set_pid(t->sym[t->nvms], t->pid);
		}
		t->nvms++;
	}
}

static void target_release(struct target *t);

/* --label-from: the user's labels for a new target.  A failure costs the
 * labels, never the target, and is said once per process. */
static void label_from(const struct targets *ts, struct target *t)
{
	char err[300];
	int skipped;

	if (!ts->label_from || (ts->stop && *ts->stop))
		return;
	skipped = label_hook_run(ts->label_from, t->pid, &t->ctr, err, sizeof(err));
	if (skipped < 0)
		log_warn("PID %d (%s): --label-from: %s; no labels from it", (int)t->pid, t->comm, err);
	else if (skipped)
		log_warn("PID %d (%s): --label-from: %d line(s) not key=value of the allowed keys; skipped",
			 (int)t->pid, t->comm, skipped);
}
static void follow_forks(struct targets *ts, pid_t parent);

static enum discover_result scan(const struct targets *ts, struct target *t,
				 struct discover_report *rep)
{
	struct lj_vm found[LBP_MAX_VMS];
	struct discover_budget b = { .stop = ts->stop };
	enum discover_result res = discover_vms(t->pid, t->mem, found, LBP_MAX_VMS, &b, rep);

	if (res == DISCOVER_FOUND)
		adopt_vms(t, found, rep->nvms);
	if (rep->nvms == LBP_MAX_VMS && !t->warned_max_vms) {
		log_warn("PID %d (%s): more than %d LuaJIT VMs; samples of any others count as [host]",
			 (int)t->pid, t->comm, LBP_MAX_VMS);
		t->warned_max_vms = true;
	}
	t->scans++;
	return res;
}

int targets_add(struct targets *ts, pid_t pid, bool strict, char *err, size_t errlen)
{
	struct target *t;
	struct discover_report rep;
	enum discover_result res;
	int scan_errno;

	if (targets_find(ts, pid))
		return 0;
	if (proc_check_user_process(pid, err, errlen))
		return -1;
	if (ts->n == ts->cap) {
		int cap = ts->cap ? ts->cap * 2 : 8;
		struct target *nt = realloc(ts->t, (size_t)cap * sizeof(*nt));

		if (!nt) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		ts->t = nt;
		ts->cap = cap;
	}
	t = &ts->t[ts->n];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->eager = strict;
	t->program = proc_program_root(pid);
	proc_read_comm(pid, t->comm, sizeof(t->comm));
	container_of_pid("/proc", pid, &t->ctr);
	label_from(ts, t);
	proc_read_cwd(pid, t->cwd, sizeof(t->cwd));
	t->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	t->mem = mem_open_pid(pid);
	if (!t->mem) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	errno = 0;
	res = scan(ts, t, &rep);
	scan_errno = errno;
	log_verbose("PID %d (%s): scanned %llu KiB, %d candidate(s), %d VM(s)", (int)pid, t->comm,
		    (unsigned long long)(rep.bytes_scanned >> 10), rep.candidates, rep.nvms);
	if (res == DISCOVER_GONE) {
		/* /proc/PID/maps unreadable: gone, not ours to read, or no fd. */
		if (kill(pid, 0) && errno == ESRCH)
			snprintf(err, errlen, "PID %d: no such process", (int)pid);
		else
			snprintf(err, errlen, "PID %d (%s): cannot read its memory maps: %s", (int)pid,
				 t->comm,
				 scan_errno == EMFILE || scan_errno == ENFILE ? "too many open files" :
				 scan_errno == EACCES || scan_errno == EPERM ?
				 proc_maps_denied_reason() : strerror(scan_errno));
		goto fail;
	}
	if (res == DISCOVER_NO_VM && !rep.bytes_scanned && mem_faults(t->mem)) {
		snprintf(err, errlen, "PID %d (%s): cannot read its memory: %s", (int)pid, t->comm,
			 geteuid() ? "permission denied (needs root)" : "process_vm_readv failed");
		goto fail;
	}
	if (strict && res == DISCOVER_UNRECOGNISED) {
		if (rep.unsupported[0])
			snprintf(err, errlen, "PID %d (%s): %s", (int)pid, t->comm, rep.unsupported);
		else
			snprintf(err, errlen, "PID %d (%s): LuaJIT layout not recognised (-v for details)",
				 (int)pid, t->comm);
		goto fail;
	}
	if (strict && res == DISCOVER_NO_VM && !proc_maps_luajit(pid)) {
		snprintf(err, errlen, "PID %d (%s): no LuaJIT VM found", (int)pid, t->comm);
		goto fail;
	}
	if (res != DISCOVER_FOUND) {
		t->waiting = true;
		if (strict)
			log_warn("PID %d (%s): LuaJIT is loaded but no VM exists yet; waiting for one",
				 (int)pid, t->comm);
	}
	if (ts->prof)
		target_name_in(ts->prof, t);
	push_to_kernel(ts, t);
	ts->n++;
	if (strict)
		follow_forks(ts, pid);
	return 0;
fail:
	target_release(t);
	return -1;
}

void target_name_in(struct profile *p, const struct target *t)
{
	const struct container_ref *c = &t->ctr;
	struct proc_container pc = {
		.id = c->id[0] ? c->id : NULL, .name = c->name[0] ? c->name : NULL,
		.pod_uid = c->pod_uid[0] ? c->pod_uid : NULL,
		.pod_name = c->pod_name[0] ? c->pod_name : NULL,
		.pod_namespace = c->pod_namespace[0] ? c->pod_namespace : NULL,
		.labels = c->labels[0] ? c->labels : NULL,
	};

	profile_set_comm(p, (uint32_t)t->pid, t->comm);
	profile_set_program(p, (uint32_t)t->pid, (uint32_t)t->program);
	profile_set_container(p, (uint32_t)t->pid, &pc);
}

static void target_release(struct target *t)
{
	for (int v = 0; v < t->nvms; v++)
		sym_free(t->sym[v]);
	if (t->have_vd) {
		vmdef_free(t->vd);
		free(t->vd);
		t->vd = NULL;
	}
	mem_close(t->mem);
	if (t->pidfd >= 0)
		close(t->pidfd);
	t->nvms = 0;
	t->have_vd = false;
	t->mem = NULL;
	t->pidfd = -1;
}

void targets_exec_done(struct targets *ts, pid_t pid)
{
	struct target *t = targets_find(ts, pid);

	if (!t)
		return;
	t->eager = true;
	t->scans = 0;
	t->next_scan_ns = 0;
	proc_read_comm(pid, t->comm, sizeof(t->comm));
	if (ts->prof)
		profile_set_comm(ts->prof, (uint32_t)pid, t->comm);
}

int targets_follow_descendants(struct targets *ts, pid_t root)
{
	pid_t kids[256];
	char err[256];
	int n = proc_descendants(root, kids, 256), added = 0;

	for (int i = 0; i < n; i++) {
		if (targets_find(ts, kids[i]) || targets_add(ts, kids[i], false, err, sizeof(err)))
			continue;
		log_verbose("PID %d started PID %d (%s): profiling it too", (int)root,
			    (int)kids[i], targets_find(ts, kids[i])->comm);
		added++;
	}
	return added;
}

void targets_remove(struct targets *ts, pid_t pid)
{
	struct target *t = targets_find(ts, pid);

	if (!t)
		return;
	if (ts->col)
		collector_del_proc(ts->col, pid);
	target_release(t);
	*t = ts->t[--ts->n];
}

void targets_attach(struct targets *ts, struct collector *col)
{
	ts->col = col;
	for (int i = 0; i < ts->n; i++)
		push_to_kernel(ts, &ts->t[i]);
}

FILE *targets_open_source(const char *path, void *ctx)
{
	struct targets *ts = ctx;
	char full[1024];
	FILE *f;

	for (int i = 0; i < ts->n; i++) {
		const struct target *t = &ts->t[i];

		if (path[0] == '/')
			snprintf(full, sizeof(full), "/proc/%d/root%s", (int)t->pid, path);
		else if (t->cwd[0])
			snprintf(full, sizeof(full), "%s/%s", t->cwd, path);
		else
			continue;
		f = fopen(full, "re");
		if (f)
			return f;
	}
	return fopen(path, "re");
}

static bool has_exited(struct target *t)
{
	struct pollfd pfd = { .fd = t->pidfd, .events = POLLIN };
	char state;
	unsigned flags;

	if (t->pidfd >= 0)
		return poll(&pfd, 1, 0) > 0;
	return proc_read_stat(t->pid, &state, &flags) || state == 'Z' || state == 'X';
}

/* Whether the VM still validates where it was found: after lua_close or
 * an exec its memory holds something else. */
static bool vm_alive(struct target *t, const struct lj_vm *vm)
{
	struct layout_probe probe;

	return !layout_identify(t->mem, vm->gg, vm->layout->gc64, &probe) &&
	       probe.layout == vm->layout;
}

/* Forgets the VMs that are gone; says so when the last one goes.  Their
 * samples drained later have unknown frames (the memory they name is gone),
 * counted; later samples of the process count as [host] until a new VM
 * is found. */
static bool drop_dead_vms(struct targets *ts, struct target *t)
{
	int before = t->nvms;
	char comm[32];

	for (int v = 0; v < t->nvms;) {
		if (vm_alive(t, &t->vms[v])) {
			t->vm_misses[v] = 0;
			v++;
			continue;
		}
		/* A live VM can read as inconsistent for a moment (fields
		 * read while the VM changes them): it is gone only when two
		 * checks a second apart say so. */
		if (++t->vm_misses[v] < VM_GONE_CHECKS) {
			log_verbose("PID %d: the VM at %#llx did not validate; checked again in 1 s",
				    (int)t->pid, (unsigned long long)t->vms[v].g);
			v++;
			continue;
		}
		log_verbose("PID %d: the VM at %#llx is gone", (int)t->pid,
			    (unsigned long long)t->vms[v].g);
		ts->retired_unknown += sym_unknown_count(t->sym[v]);
		sym_free(t->sym[v]);
		t->nvms--;
		t->vms[v] = t->vms[t->nvms];
		t->sym[v] = t->sym[t->nvms];
		t->vm_misses[v] = t->vm_misses[t->nvms];
		t->vm_misses[t->nvms] = 0;
		t->sym[t->nvms] = NULL;
	}
	if (t->nvms == before)
		return false;
	if (!t->nvms) {
		proc_read_comm(t->pid, comm, sizeof(comm));
		if (strcmp(comm, t->comm))
			log_warn("PID %d (%s) exec'd %s: its LuaJIT VM is gone; what was collected is kept, its samples count as [host] until a new VM appears",
				 (int)t->pid, t->comm, comm);
		else
			log_warn("PID %d (%s): its LuaJIT VM is gone (closed, or the process exec'd); what was collected is kept, its samples count as [host] until a new VM appears",
				 (int)t->pid, t->comm);
		/* Like a new process: look for the next VM often at first. */
		t->waiting = true;
		t->scans = 0;
		t->next_scan_ns = 0;
	}
	return true;
}

/* A forked child that still runs its parent's program holds a copy of the
 * parent's VM at the same address (an nginx master's workers).  BPF
 * filters on the process, so each such child is added as a target of its
 * own.  Takes a pid, not a target: adding may move the targets array. */
static void follow_forks(struct targets *ts, pid_t parent)
{
	struct target *t = targets_find(ts, parent);
	pid_t kids[64];
	char comm[32], err[256];
	int n;

	if (!t || !t->nvms)
		return;
	snprintf(comm, sizeof(comm), "%s", t->comm);
	n = proc_children(parent, kids, 64);
	for (int i = 0; i < n; i++) {
		if (targets_find(ts, kids[i]) || !proc_same_program(parent, kids[i]))
			continue;
		if (!targets_add(ts, kids[i], false, err, sizeof(err)))
			log_info("PID %d (%s) forked PID %d running the same program: profiling it too",
				 (int)parent, comm, (int)kids[i]);
	}
}

int targets_poll(struct targets *ts, uint64_t now_ns)
{
	bool check = now_ns >= ts->next_check_ns;
	int running = 0;

	if (check)
		ts->next_check_ns = now_ns + CHECK_NS;
	for (int i = 0; i < ts->n; i++) {
		struct target *t = &ts->t[i];
		bool changed = false;

		if (t->exited)
			continue;
		if (has_exited(t)) {
			t->exited = true;
			for (int v = 0; v < t->nvms; v++)
				sym_freeze(t->sym[v]);
			continue;
		}
		running++;
		if (check) {
			pid_t pid = t->pid;

			changed = drop_dead_vms(ts, t);
			follow_forks(ts, pid);
			t = &ts->t[i];
		}
		/* Without a VM, scan memory only once LuaJIT is mapped: a
		 * process that exec'd something else is not read over and over. */
		if (now_ns >= t->next_scan_ns && !t->nvms && !proc_maps_luajit(t->pid)) {
			t->waiting = true;
			/* A command just launched execs LuaJIT any moment. */
			t->scans++;
			t->next_scan_ns = now_ns + (t->eager && t->scans < RESCAN_EAGER_SCANS ?
						    RESCAN_EAGER_NS : RESCAN_FIRST_NS);
		} else if (now_ns >= t->next_scan_ns &&
			   (t->waiting || t->scans < 4 || t->scans_since_found < RESCAN_SIBLING_SCANS)) {
			struct discover_report rep;
			int before = t->nvms;

			scan(ts, t, &rep);
			t->waiting = t->nvms == 0;
			changed |= t->nvms != before;
			/* A new process creates its VM early: look often at first. */
			if (t->waiting) {
				/* Often at first (a short program lives
				 * 0.1 s), then doubling. */
				unsigned first = t->eager ? RESCAN_EAGER_SCANS : RESCAN_FIRST_SCANS;
				unsigned over = t->scans > first ? t->scans - first : 0;
				uint64_t wait = (t->eager ? RESCAN_EAGER_NS : RESCAN_FIRST_NS)
						<< (over < 9 ? over : 9);

				t->next_scan_ns = now_ns + (wait < RESCAN_WAIT_MAX_NS ? wait : RESCAN_WAIT_MAX_NS);
			} else {
				unsigned k = t->scans_since_found++;

				t->next_scan_ns = now_ns + (k < RESCAN_SIBLING_SCANS ?
							    RESCAN_FIRST_NS << (k + 1) : RESCAN_SLOW_NS);
			}
		}
		/* jit.zone may be required at any time after attach; looking
		 * once a second keeps twenty idle agents' targets cheap. */
		for (int v = 0; v < t->nvms && check; v++) {
			if (!t->vms[v].zone_tab) {
				t->vms[v].zone_tab = discover_zone_table(t->mem, &t->vms[v]);
				changed |= t->vms[v].zone_tab != 0;
			}
		}
		if (changed)
			push_to_kernel(ts, t);
	}
	return running;
}

bool targets_waiting(const struct targets *ts)
{
	for (int i = 0; i < ts->n; i++)
		if (!ts->t[i].exited && ts->t[i].waiting)
			return true;
	return false;
}

void targets_free(struct targets *ts)
{
	if (!ts)
		return;
	for (int i = 0; i < ts->n; i++)
		target_release(&ts->t[i]);
	free(ts->t);
	free(ts);
}
