/* SPDX-License-Identifier: MIT */
/* The JIT's own records of the profiled VMs, gathered while a profile
 * runs (--jit): trace aborts from the penalty cache, the traces compiled,
 * and the loops and functions blacklisted.  Read from target memory,
 * never written.
 *
 * Aborts are polled each session tick, not caught by uprobes: the penalty
 * cache (src/lj_trace.c penalty_pc) keeps the start PC and reason of the
 * last 64 aborted trace starts, so a poll misses none of those; what a
 * poll can miss is the argument of the message ("NYI: bytecode 51") and
 * where recording stopped, which only the latest abort leaves in
 * jit_State.  Those print as "?" when not seen. */
#ifndef LBP_JITWATCH_H
#define LBP_JITWATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct targets;

#define JW_LOC	192

struct jw_abort {
	uint32_t pid;
	uint64_t g, startpc;
	uint8_t reason;		/* TraceError code */
	uint16_t val;		/* back-off value in the penalty cache */
	uint32_t changes;	/* polls that found the slot changed */
	bool blacklisted;	/* the start instruction is now an I* opcode */
	bool have_detail;	/* arg and at were captured for this abort */
	char func[JW_LOC];	/* the function holding the start ('f' key) */
	char start[JW_LOC];	/* "chunk:line" of the trace start */
	char at[JW_LOC];	/* where recording stopped, "" unknown */
	char text[256];		/* the message as luajit -jv prints it */
};

struct jw_trace {
	uint32_t pid;
	uint64_t g;
	uint16_t traceno, link, root;
	uint16_t parent, exitno;	/* a side trace's parent exit, when known */
	bool parent_ambiguous;		/* several exits of its root's traces fit */
	uint8_t linktype;
	char func[JW_LOC], start[JW_LOC];
};

/* A side exit that was hot: taken J->param[hotexit] times, so a side
 * trace was tried.  Its count then stays at the limit plus the failed
 * tries, and once a side trace is linked the JIT stops counting
 * (SNAPCOUNT_DONE): how often an exit was taken past that is not kept. */
struct jw_exit {
	uint32_t pid;
	uint64_t g;
	uint16_t traceno, exitno;
	uint16_t side;		/* the side trace linked to it; 0 none */
	uint8_t side_linktype;	/* JLINK_INTERP: the tries failed (a stub) */
	uint8_t count;		/* when no side trace: exits taken */
	int32_t hotexit, tryside;	/* the target's J->param */
	char func[JW_LOC], where[JW_LOC];	/* where the interpreter resumes */
};

struct jw_black {
	uint32_t pid;
	uint64_t g;
	const char *op;		/* what it was: "FORL", "LOOP", "ITERL", "FUNCF" ... */
	char func[JW_LOC], where[JW_LOC];
};

struct jw_result {
	struct jw_abort *aborts;
	size_t naborts;
	struct jw_trace *traces;
	size_t ntraces;
	struct jw_black *blacks;
	size_t nblacks;
	struct jw_exit *exits;
	size_t nexits;
	uint64_t exit_read_failures;	/* traces whose snapshots were unreadable */
	uint64_t polls, read_failures;
	/* What the reads cost: wall time in luabpfprof and bytes copied from
	 * the targets, for the polls and for the last reading at the end
	 * (traces, exits, blacklisted bytecode, with their names). */
	uint64_t poll_ns, poll_bytes, finish_ns, finish_bytes;
	uint32_t exited;	/* targets gone before the end: no traces, blacklists */
	char refusal[200];	/* a VM whose JIT state cannot be read: why */
};

struct jitwatch;

struct jitwatch *jitwatch_new(void);
void jitwatch_free(struct jitwatch *jw);

/* Reads every VM's penalty cache and last abort; call each tick. */
void jitwatch_poll(struct jitwatch *jw, struct targets *ts);

/* A last poll, then the traces and blacklisted bytecode of the VMs still
 * alive.  The result stays owned by jw. */
const struct jw_result *jitwatch_finish(struct jitwatch *jw, struct targets *ts);

#endif
