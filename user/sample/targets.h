/* SPDX-License-Identifier: MIT */
/* The processes being profiled: their VMs (found at start and rescanned
 * later), a memory reader and symbolizers each, forks and exits. */
#ifndef LBP_TARGETS_H
#define LBP_TARGETS_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "model/profile.h"

struct collector;
struct lj_layout;
struct lj_vm;
struct mem_reader;
struct symbolizer;
struct target;
struct targets;

/* ==== The set ==== */

struct targets *targets_new(void);
void targets_free(struct targets *ts);

/* Where the names (comm) of targets go: every target now, new ones as
 * they are added.  The session sets it to each new profile. */
void targets_set_profile(struct targets *ts, struct profile *p);

/* --label-from: the program that labels each new target
 * (container/label_hook.h); NULL for none.  Kept, not copied. */
void targets_set_label_from(struct targets *ts, const char *program);

/* The stop flag (SIGINT, SIGTERM): a VM scan in progress ends at its next
 * chunk, and no new --label-from program is started, once it is set. */
void targets_set_stop(struct targets *ts, volatile sig_atomic_t *stop);

/* Hands every target to the collector (targets added before it existed),
 * and later ones as they are added. */
void targets_attach(struct targets *ts, struct collector *col);

/* Starts profiling pid.  strict: refuse a process without a LuaJIT VM
 * (for -p); otherwise keep rescanning (for -- COMMAND).  Writes a
 * one-line reason on failure. */
int targets_add(struct targets *ts, pid_t pid, bool strict, char *err, size_t errlen);

/* A launched command has exec'd: its name is read again, and it is
 * looked at every 2 ms until its VM is found (a short program's samples
 * before that count as [host]). */
void targets_exec_done(struct targets *ts, pid_t pid);

/* Adds the descendants of root not yet profiled, as waiting targets (a
 * command's children: `sh -c 'luajit app.lua'`).  Returns how many. */
int targets_follow_descendants(struct targets *ts, pid_t root);

/* Stops profiling pid and frees what it held (for exited processes in
 * long runs; their samples already drained stay in the profile). */
void targets_remove(struct targets *ts, pid_t pid);

/* Rescans processes still without VMs, looks for jit.zone tables and
 * notices exits.  Returns the number of targets still running. */
int targets_poll(struct targets *ts, uint64_t now_ns);

/* Whether a running target is still waiting for its first VM. */
bool targets_waiting(const struct targets *ts);

/* Opens a source file named by a chunk: relative to a target's working
 * directory, or absolute (through its root first).  For the a/A views. */
FILE *targets_open_source(const char *path, void *targets);

/* Starts a new symbol cache epoch in every VM (prototypes revalidated). */
void targets_next_epoch(struct targets *ts);

/* Frames that failed symbolization, over every VM ever known. */
uint64_t targets_unknown_frames(const struct targets *ts);

/* ==== One target ==== */

/* Targets by index, 0 <= i < targets_count(); an index is valid until the
 * next add or remove. */
int targets_count(const struct targets *ts);
struct target *targets_at(struct targets *ts, int i);

/* The target for pid, or NULL. */
struct target *targets_find(struct targets *ts, pid_t pid);

pid_t target_pid(const struct target *t);
const char *target_comm(const struct target *t);
bool target_exited(const struct target *t);
/* Running, but without a VM yet. */
bool target_waiting(const struct target *t);
int target_nvms(const struct target *t);

/* The VM whose global_State is g: its symbolizer (NULL when g is not, or
 * no longer, known), memory and layout. */
struct symbolizer *target_vm(const struct target *t, uint64_t g, struct mem_reader **mem,
			     const struct lj_layout **layout);

/* The i-th VM of t (0 <= i < target_nvms): its discovery record and
 * symbolizer and memory (none may be NULL); NULL when out of range. */
const struct lj_vm *target_vm_at(const struct target *t, int i, struct symbolizer **sym,
				 struct mem_reader **mem);

/* A VM was just created in the process: rescan it soon. */
void target_rescan_soon(struct target *t);

#endif
