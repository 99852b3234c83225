/* SPDX-License-Identifier: MIT */
/* The exits of one compiled trace: its snapshots (src/lj_jit.h SnapShot)
 * with the bytecode PC each one returns to and how often it was taken
 * (src/lj_trace.c trace_hotside counts up to J->param[hotexit], then
 * tries a side trace; SNAPCOUNT_DONE once one is linked). */
#ifndef LBP_JSNAP_H
#define LBP_JSNAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lj_layout;
struct mem_reader;
struct jtrace;

#define JSNAP_MAX	1024	/* snapshots per trace read (maxsnap is 500) */
#define JSNAP_MAP_MAX	65536	/* snapshot map entries read per trace */

struct jexit {
	uint16_t exitno;	/* the snapshot's index: -jv's "start T/E" */
	uint8_t count;		/* exits taken, saturating at the side trace */
	uint64_t pc;		/* bytecode the interpreter resumes at */
	uint16_t mcofs;		/* where its machine code starts; 0 unknown */
};

/* Decodes nsnap SnapShots (snaps, lay->sizeof_snap each) against their
 * map of nmap 32-bit entries.  The PC follows each snapshot's entries:
 * a uint64_t (pc << 8 | base) where frames take two slots (GC64 builds,
 * LJ_FR2), else one 32-bit entry (src/lj_snap.c snapshot_framelinks).
 * Returns the exits written (at most max), -1 when inconsistent. */
int jsnap_parse(const struct lj_layout *lay, const uint8_t *snaps, size_t nsnap,
		const uint8_t *map, size_t nmap, struct jexit *out, size_t max);

/* Reads tr's snapshots and map from target memory and decodes them. */
int jsnap_read(struct mem_reader *mem, const struct lj_layout *lay, const struct jtrace *tr,
	       struct jexit *out, size_t max);

/* A trace and its exits, as jsnap_parent looks at them. */
struct jsnap_trace {
	uint16_t traceno, root;		/* root: 0 for a root trace */
	uint64_t startpc;
	uint64_t mcode;			/* where its machine code starts */
	const struct jexit *exits;
	int nexits;
	bool has_mcofs;		/* exits[].mcofs are known */
};

enum jsnap_parent_found { JSNAP_NO_PARENT, JSNAP_PARENT, JSNAP_PARENT_AMBIGUOUS };

struct jsnap_link {
	uint16_t parent, exitno;	/* when found == JSNAP_PARENT */
	enum jsnap_parent_found found;
};

/* The offset in x86-64 code (len bytes, at addr in the target) of the
 * first jcc rel32 or jmp rel32 to target, -1 when none: src/lj_asm_x86.h
 * lj_asm_patchexit points the parent's exit branches at the side trace's
 * code once it is linked. */
long jsnap_x64_jump_to(const uint8_t *code, size_t len, uint64_t addr, uint64_t target);

/* The same in A64 code: the offset of the first b, b.cond, cbz/cbnz or
 * tbz/tbnz to target (src/lj_asm_arm64.h lj_asm_patchexit retargets those
 * within their range). */
long jsnap_a64_jump_to(const uint8_t *code, size_t len, uint64_t addr, uint64_t target);

/* arm64's exit stubs follow a trace's code (src/lj_target_arm64.h
 * exitstub_trace_addr: NOPs, a 3 or 4 instruction head, one bl per exit);
 * linking a side trace always turns its exit's stub into a b to it, even
 * where the body's branch is out of range.  The exit (of the first
 * nstubs) whose stub, in stubs (len bytes at addr), branches to target;
 * -1 when none. */
int jsnap_a64_stub_exit_to(const uint8_t *stubs, size_t len, uint64_t addr, int nstubs,
			   uint64_t target);

/* The exit whose code covers machine code offset ofs of trace t (in
 * MCode units: bytes on x86-64, instructions on arm64): the last one
 * starting at or before it (src/lj_trace.c lj_trace_unwind); -1 when
 * the snapshots carry no mcofs. */
int jsnap_exit_at(const struct jsnap_trace *t, uint32_t ofs);

#define JSNAP_NO_JUMP		(-1)
#define JSNAP_JUMP_ANY_EXIT	(-2)	/* jumps there, from an exit not known */

/* Whether trace t's machine code (code: body bytes of its own, then len -
 * body bytes that follow it, where arm64 keeps its exit stubs) jumps to
 * target: JSNAP_NO_JUMP, the exit it jumps from, or JSNAP_JUMP_ANY_EXIT,
 * by this architecture's rules (luajit/arch.h). */
int jsnap_exit_jumping_to(const struct jsnap_trace *t, const uint8_t *code, size_t body,
			  size_t len, uint64_t target);

/* Whether the machine code of all[idx] jumps to target (a side trace's
 * start): JSNAP_NO_JUMP, the exit it jumps from, or JSNAP_JUMP_ANY_EXIT.
 * jsnap_parents asks it when several exits fit. */
typedef int (*jsnap_jumps_fn)(void *ctx, size_t idx, uint64_t target);

/* GCtrace keeps a side trace's root but not its parent and exit.  A side
 * trace starts at the PC of its parent's exit, the parent is its root or
 * one of the root's other side traces, and that exit's count became
 * SNAPCOUNT_DONE when the side trace was linked (src/lj_trace.c
 * trace_stop); one exit gets one side trace.  Several exits often fit
 * (a side trace's exit 0 resumes where its parent's exit does, unrolled
 * loops repeat a PC): when jumps is given, only the exits (or traces)
 * whose code jumps to the side trace's are kept; then an exit that is the only fit
 * of one side trace is taken out of the others' choices, until nothing
 * changes.  out[i] says
 * what was found for all[i]: JSNAP_PARENT, JSNAP_PARENT_AMBIGUOUS (more
 * than one exit fits), JSNAP_NO_PARENT (a root trace; or no exit fits, its
 * parent gone). */
void jsnap_parents(const struct lj_layout *lay, const struct jsnap_trace *all, size_t n,
		   jsnap_jumps_fn jumps, void *ctx, struct jsnap_link *out);

#endif
