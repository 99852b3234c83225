// SPDX-License-Identifier: MIT
/* System-wide discovery: a /proc scan that classifies every process by
 * the files it has mapped, uretprobes on the VM-creation API of the LuaJIT
 * files found so far (vmwatch), and the forgetting of exited targets.
 *
 * Each process is examined once when first seen and then rarely: its maps
 * again only while it is young (a fork not yet exec'd looks like its
 * parent) or after a long pause (dlopen), so a scan of a quiet host costs a
 * readdir and a merge.  A process with LuaJIT mapped but no VM yet is
 * retried with a growing delay (each retry is a memory scan), or at once
 * when its luaL_newstate returns.
 */
#define _GNU_SOURCE
#include "sample/sysscan.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "proc/elfinfo.h"
#include "base/log.h"
#include "sample/targets.h"
#include "sample/vmwatch.h"

#define SCAN_NS		1000000000ull	/* /proc is rescanned this often */
#define RECHECK_MAX_NS	15000000000ull	/* maps of other processes, at most this stale */
#define PENDING_MIN_NS	100000000ull	/* first retry of a process without a VM */
#define PENDING_MAX_NS	30000000000ull
#define MAX_OBJECTS	4096		/* classified files remembered */

/* Files that are LuaJIT by name; others are by exporting luaJIT_setmode
 * (which PUC Lua, exporting the same lua_* API, lacks). */
static const char *const well_known[] = {
	"/usr/bin/luajit",
	"/usr/local/bin/luajit",
	"/usr/lib/x86_64-linux-gnu/libluajit-5.1.so.2",
	"/usr/lib/aarch64-linux-gnu/libluajit-5.1.so.2",
	"/usr/local/lib/libluajit-5.1.so.2",
	"/usr/local/openresty/luajit/lib/libluajit-5.1.so.2",
	"/usr/local/openresty/luajit/bin/luajit",
};

enum proc_kind {
	PROC_OTHER,	/* no LuaJIT mapped (when last checked) */
	PROC_PENDING,	/* LuaJIT mapped, no VM yet: retried with backoff */
	PROC_TARGET,	/* being profiled */
	PROC_DONE,	/* exited or refused: left alone until its pid goes */
};

struct proc_entry {
	pid_t pid;
	enum proc_kind kind;
	uint64_t start;		/* start time (ticks after boot): with pid, who it is */
	uint64_t first_ns;	/* first seen */
	uint64_t next_ns;	/* next check or retry */
	uint64_t delay_ns;	/* PENDING: current backoff */
	bool warned;		/* PENDING: told the user it has no usable VM */
};

struct object {
	uint64_t dev, ino;
	bool luajit;
};

struct sysscan {
	struct proc_entry *procs;	/* sorted by pid */
	size_t nprocs, cap;
	struct object *objs;
	size_t nobjs, objcap;
	uint64_t next_scan_ns;
	pid_t self;
	struct vmwatch *watch;		/* NULL: rescans only */
	bool watch_tried;
	struct targets *ts;
	struct sysscan_opts o;
	uint64_t now_ns;		/* of the current poll, for on_vm_created */
	int added;
};

static struct proc_entry *find_proc(struct sysscan *ss, pid_t pid)
{
	size_t lo = 0, hi = ss->nprocs;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ss->procs[mid].pid == pid)
			return &ss->procs[mid];
		if (ss->procs[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static bool name_is_luajit(const char *path)
{
	const char *base = strrchr(path, '/');

	return strstr(base ? base + 1 : path, "luajit") != NULL;
}

static struct object *find_object(struct sysscan *ss, uint64_t dev, uint64_t ino)
{
	for (size_t i = 0; i < ss->nobjs; i++)
		if (ss->objs[i].dev == dev && ss->objs[i].ino == ino)
			return &ss->objs[i];
	return NULL;
}

/* Remembers a classification; the cache restarts when full (a host with
 * thousands of distinct executables is rare, and reclassifying is cheap). */
static struct object *add_object(struct sysscan *ss, uint64_t dev, uint64_t ino, bool luajit)
{
	if (ss->nobjs == MAX_OBJECTS)
		ss->nobjs = 0;
	if (ss->nobjs == ss->objcap) {
		size_t cap = ss->objcap ? ss->objcap * 2 : 64;
		struct object *o = realloc(ss->objs, cap * sizeof(*o));

		if (!o)
			return NULL;
		ss->objs = o;
		ss->objcap = cap;
	}
	ss->objs[ss->nobjs] = (struct object){ dev, ino, luajit };
	return &ss->objs[ss->nobjs++];
}

/* Whether the file mapped at [start, end) in pid is LuaJIT; new LuaJIT
 * files get VM-creation probes. */
static bool object_is_luajit(struct sysscan *ss, pid_t pid, unsigned long long start, unsigned long long end,
			     uint64_t dev, uint64_t ino, const char *path)
{
	struct object *o = find_object(ss, dev, ino);
	struct elf_file *ef;
	char file[PATH_MAX];
	uint64_t vaddr;
	bool luajit;

	if (o)
		return o->luajit;
	/* map_files reaches the file even in another mount namespace. */
	snprintf(file, sizeof(file), "%s/%d/map_files/%llx-%llx", ss->o.proc_root, (int)pid, start,
		 end);
	luajit = name_is_luajit(path);
	if (!luajit) {
		ef = elf_file_open(file);
		luajit = ef && !elf_symbol(ef, "luaJIT_setmode", &vaddr);
		elf_file_close(ef);
	}
	add_object(ss, dev, ino, luajit);
	if (luajit) {
		log_verbose("LuaJIT object %s (PID %d)", path, (int)pid);
		if (vmwatch_add_object(ss->watch, file, dev, ino) > 0)
			log_verbose("watching %s for new VMs", path);
	}
	return luajit;
}

/* 1 when a LuaJIT file is mapped executable in pid, 0 when not, -1 when
 * the process is gone.  Parses only what classification needs. */
static int maps_luajit(struct sysscan *ss, pid_t pid)
{
	char path[PATH_MAX], line[512], name[256];
	unsigned long long start, end, ino, last_ino = 0;
	unsigned maj, min;
	char perms[8];
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/maps", ss->o.proc_root, (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f)) {
		name[0] = '\0';
		if (sscanf(line, "%llx-%llx %7s %*x %x:%x %llu %255[^\n]", &start, &end, perms,
			   &maj, &min, &ino, name) < 6)
			continue;
		/* Code only; a file's consecutive mappings need one look. */
		if (perms[2] != 'x' || !ino || ino == last_ino)
			continue;
		last_ino = ino;
		found = object_is_luajit(ss, pid, start, end, makedev(maj, min), ino, name);
	}
	fclose(f);
	return found;
}

/* Tries to profile pid; keeps it if a VM was found, else schedules a retry. */
static void try_add(struct sysscan *ss, struct proc_entry *e, uint64_t now)
{
	char err[256];
	struct target *t;

	if (targets_add(ss->ts, e->pid, false, err, sizeof(err))) {
		log_verbose("-a: %s", err);
		e->kind = PROC_DONE;
		return;
	}
	t = targets_find(ss->ts, e->pid);
	if (t && !target_waiting(t)) {
		log_verbose("-a: profiling PID %d (%s), %d VM(s)", (int)e->pid, target_comm(t),
			    target_nvms(t));
		e->kind = PROC_TARGET;
		ss->added++;
		return;
	}
	/* Not a target until it has a VM: each rescan is a memory scan. */
	e->kind = PROC_PENDING;
	e->delay_ns = e->delay_ns ? e->delay_ns * 2 : PENDING_MIN_NS;
	if (e->delay_ns >= PENDING_MAX_NS) {
		e->delay_ns = PENDING_MAX_NS;
		/* A minute without a VM: an unsupported build, or a VM yet to come. */
		if (t && !e->warned)
			log_warn("-a: PID %d (%s) maps LuaJIT but no VM was recognised; retrying every %llu s (-v for details)",
				 (int)e->pid, target_comm(t), PENDING_MAX_NS / 1000000000ull);
		e->warned = true;
	}
	targets_remove(ss->ts, e->pid);
	e->next_ns = now + e->delay_ns;
}

/* Looks at one process when it is due. */
static void examine(struct sysscan *ss, struct proc_entry *e, uint64_t now)
{
	uint64_t age = now - e->first_ns;
	int r;

	if (now < e->next_ns)
		return;
	switch (e->kind) {
	case PROC_OTHER:
		r = maps_luajit(ss, e->pid);
		if (r > 0) {
			try_add(ss, e, now);
		} else if (r < 0) {
			e->kind = PROC_DONE;
		} else {
			/* Young processes may still exec; old ones rarely dlopen. */
			e->next_ns = now + (age < SCAN_NS ? SCAN_NS : age < RECHECK_MAX_NS ? age :
					    RECHECK_MAX_NS);
		}
		break;
	case PROC_PENDING:
		try_add(ss, e, now);
		break;
	case PROC_TARGET:
	case PROC_DONE:
		break;
	}
}

static int pid_cmp(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* The pids in /proc, sorted; -1 on error. */
static int list_pids(const char *root, pid_t **out, size_t *n)
{
	DIR *d = opendir(root);
	struct dirent *de;
	pid_t *pids = NULL;
	size_t cap = 0;

	*n = 0;
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0)
			continue;
		if (*n == cap) {
			pid_t *p = realloc(pids, (cap = cap ? cap * 2 : 512) * sizeof(*p));

			if (!p) {
				free(pids);
				closedir(d);
				return -1;
			}
			pids = p;
		}
		pids[(*n)++] = (pid_t)pid;
	}
	closedir(d);
	qsort(pids, *n, sizeof(*pids), pid_cmp);
	*out = pids;
	return 0;
}

/* When pid started (/proc/PID/stat field 22), 0 when unreadable.  A pid
 * is reused by another process; pid and start time are not. */
static uint64_t start_time(const struct sysscan *ss, pid_t pid)
{
	char path[PATH_MAX], buf[1024], *p;
	unsigned long long start = 0;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/stat", ss->o.proc_root, (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* comm may hold spaces and parentheses: fields 3.. follow the last ')'. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
			 "%*d %*d %*d %*d %llu", &start) != 1)
		return 0;
	return start;
}

static struct proc_entry new_entry(const struct sysscan *ss, pid_t pid, uint64_t now)
{
	struct proc_entry e = { .pid = pid, .first_ns = now, .next_ns = now,
				.start = start_time(ss, pid) };

	if (pid == ss->self)
		e.kind = PROC_DONE;
	return e;
}

/* Whether a process left alone for good (done, or profiled) is still the
 * one the entry is about: a new process reusing its pid is examined. */
static bool same_process(const struct sysscan *ss, const struct proc_entry *e)
{
	uint64_t start;

	if (e->kind != PROC_DONE && e->kind != PROC_TARGET)
		return true;	/* looked at again anyway */
	start = start_time(ss, e->pid);
	return !start || !e->start || start == e->start;
}

/* Rebuilds the process table from /proc: known processes keep their
 * state, gone ones are dropped, new ones are examined. */
static void scan(struct sysscan *ss, uint64_t now)
{
	struct proc_entry *next;
	pid_t *pids;
	size_t n, j = 0;

	if (list_pids(ss->o.proc_root, &pids, &n)) {
		log_warn("-a: cannot list %s: %s", ss->o.proc_root, strerror(errno));
		return;
	}
	next = calloc(n ? n : 1, sizeof(*next));
	if (!next) {
		free(pids);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		while (j < ss->nprocs && ss->procs[j].pid < pids[i])
			j++;
		if (j < ss->nprocs && ss->procs[j].pid == pids[i] &&
		    same_process(ss, &ss->procs[j]))
			next[i] = ss->procs[j];
		else
			next[i] = new_entry(ss, pids[i], now);
	}
	free(ss->procs);
	free(pids);
	ss->procs = next;
	ss->nprocs = ss->cap = n;
	for (size_t i = 0; i < ss->nprocs; i++)
		examine(ss, &ss->procs[i], now);
}

/* Drains what exited targets left in the kernel maps, then drops them. */
static void forget_exited(struct sysscan *ss)
{
	struct targets *ts = ss->ts;
	bool any = false;

	for (int i = 0; i < targets_count(ts); i++)
		any |= target_exited(targets_at(ts, i));
	if (!any)
		return;
	if (ss->o.flush)
		ss->o.flush(ss->o.flush_ctx);
	for (int i = targets_count(ts) - 1; i >= 0; i--) {
		struct target *t = targets_at(ts, i);
		struct proc_entry *e;
		pid_t pid = target_pid(t);

		if (!target_exited(t))
			continue;
		log_verbose("-a: PID %d (%s) exited", (int)pid, target_comm(t));
		targets_remove(ts, pid);
		e = find_proc(ss, pid);
		if (e)
			e->kind = PROC_DONE;
	}
}

/* A process just created a VM: profile it now, or look for the new VM. */
static void on_vm_created(void *ctx, pid_t pid)
{
	struct sysscan *ss = ctx;
	uint64_t now = ss->now_ns;
	struct proc_entry *e = find_proc(ss, pid);
	struct target *t = targets_find(ss->ts, pid);

	if (pid == ss->self)
		return;
	log_verbose("-a: PID %d created a VM", (int)pid);
	if (t && !target_exited(t)) {
		/* One more VM in a known process: ask targets for rescans. */
		target_rescan_soon(t);
		return;
	}
	if (!e || !same_process(ss, e)) {
		/* Not in the table yet, or a new process under a reused pid:
		 * the next scan (re)adds it; make that soon. */
		ss->next_scan_ns = now;
		return;
	}
	if (e->kind == PROC_OTHER || e->kind == PROC_PENDING) {
		e->kind = PROC_PENDING;
		e->next_ns = now;
		e->delay_ns = 0;
	}
}

static void open_watch(struct sysscan *ss)
{
	char err[200];
	struct stat st;

	ss->watch_tried = true;
	ss->watch = vmwatch_open(err, sizeof(err));
	if (!ss->watch) {
		log_verbose("-a: %s; new processes are found by rescans only", err);
		return;
	}
	/* Probe the usual places now, so even the first process of a kind is
	 * caught when it creates its VM. */
	for (size_t i = 0; i < sizeof(well_known) / sizeof(well_known[0]); i++) {
		if (stat(well_known[i], &st) || find_object(ss, st.st_dev, st.st_ino))
			continue;
		add_object(ss, st.st_dev, st.st_ino, true);
		if (vmwatch_add_object(ss->watch, well_known[i], st.st_dev, st.st_ino) > 0)
			log_verbose("watching %s for new VMs", well_known[i]);
	}
}

struct sysscan *sysscan_new(struct targets *ts, const struct sysscan_opts *o)
{
	struct sysscan *ss = calloc(1, sizeof(*ss));

	if (!ss)
		return NULL;
	ss->ts = ts;
	ss->o = *o;
	if (!ss->o.proc_root)
		ss->o.proc_root = "/proc";
	ss->self = getpid();
	return ss;
}

int sysscan_add_all(struct sysscan *ss)
{
	uint64_t now = clock_ns(CLOCK_MONOTONIC);

	if (!ss->watch_tried && ss->o.watch_vms)
		open_watch(ss);
	ss->added = 0;
	scan(ss, now);
	ss->next_scan_ns = now + SCAN_NS;
	return ss->added;
}

void sysscan_poll(struct sysscan *ss, uint64_t now_ns)
{
	ss->now_ns = now_ns;
	vmwatch_poll(ss->watch, on_vm_created, ss);
	if (now_ns >= ss->next_scan_ns) {
		forget_exited(ss);
		ss->next_scan_ns = now_ns + SCAN_NS;
		scan(ss, now_ns);
		return;
	}
	/* Between scans only retries that are due, and VM creations. */
	for (size_t i = 0; i < ss->nprocs; i++)
		if (ss->procs[i].kind == PROC_PENDING)
			examine(ss, &ss->procs[i], now_ns);
}

void sysscan_counts(const struct sysscan *ss, struct sysscan_counts *c)
{
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < ss->nprocs; i++) {
		switch (ss->procs[i].kind) {
		case PROC_OTHER: c->other++; break;
		case PROC_PENDING: c->pending++; break;
		case PROC_TARGET: c->targets++; break;
		case PROC_DONE: c->done++; break;
		}
	}
	c->objects = ss->nobjs;
}

void sysscan_free(struct sysscan *ss)
{
	if (!ss)
		return;
	vmwatch_close(ss->watch);
	free(ss->procs);
	free(ss->objs);
	free(ss);
}
