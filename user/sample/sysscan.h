/* SPDX-License-Identifier: MIT */
/* System-wide discovery (-a): which processes on the host run LuaJIT,
 * found by a /proc scan at start and again every second while profiling,
 * and at once when a known LuaJIT file's luaL_newstate returns (uprobes,
 * see vmwatch.h), so processes that start later are profiled too and
 * exited ones are dropped. */
#ifndef LBP_SYSSCAN_H
#define LBP_SYSSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sysscan;
struct targets;

struct sysscan_opts {
	const char *proc_root;		/* NULL: "/proc"; tests give a fixture tree */
	bool watch_vms;			/* uprobes on VM creation (BPF) */
	/* Called before exited targets are dropped, so that what they left
	 * in the kernel maps is drained while they can still be named. */
	void (*flush)(void *ctx);
	void *flush_ctx;
};

/* A scanner that adds the LuaJIT processes it finds to ts. */
struct sysscan *sysscan_new(struct targets *ts, const struct sysscan_opts *o);

/* Adds every LuaJIT process not yet a target (never luabpfprof itself).
 * Returns the number added. */
int sysscan_add_all(struct sysscan *ss);

/* Called from the sampling loop about ten times a second; rescans /proc
 * when due and forgets targets that exited. */
void sysscan_poll(struct sysscan *ss, uint64_t now_ns);

/* How the processes of the last scan are classified (for tests). */
struct sysscan_counts {
	size_t other;		/* no LuaJIT mapped */
	size_t pending;		/* LuaJIT mapped, no VM yet */
	size_t targets;		/* being profiled */
	size_t done;		/* exited, refused, or luabpfprof itself */
	size_t objects;		/* mapped files classified */
};
void sysscan_counts(const struct sysscan *ss, struct sysscan_counts *c);

void sysscan_free(struct sysscan *ss);

#endif
