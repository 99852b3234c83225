/* SPDX-License-Identifier: MIT */
/* The trace compiler's state of one VM, read from target memory without
 * symbols: jit_State follows global_State in GG_State (src/lj_dispatch.h,
 * src/lj_jit.h).  Read-only: the target is never written. */
#ifndef LBP_JSTATE_H
#define LBP_JSTATE_H

#include <stdbool.h>
#include <stdint.h>

struct lj_layout;
struct mem_reader;

#define JPENALTY_SLOTS	64	/* src/lj_jit.h PENALTY_SLOTS */
#define JPENALTY_MAX	60000	/* past it, src/lj_trace.c penalty_pc blacklists */

/* One slot of the round-robin cache of aborted trace starts
 * (src/lj_trace.c penalty_pc): the start PC, its back-off value and the
 * TraceError code of its latest abort. */
struct jpenalty {
	uint64_t pc;		/* 0: unused slot */
	uint16_t val;
	uint8_t reason;
};

/* The last trace error's argument (J->errinfo): a number (an opcode or
 * IR op), a function (a fast or C function) or nothing. */
enum jerrinfo_kind { JERRINFO_NONE, JERRINFO_INT, JERRINFO_FUNC };

struct jstate {
	uint32_t state;		/* TraceState: 0 idle */
	uint64_t pt, pc;	/* last recorded prototype and PC */
	uint64_t cur_startpt, cur_startpc;	/* start of the current/last trace */
	enum jerrinfo_kind errinfo_kind;
	int32_t errinfo_int;
	uint64_t errinfo_func;	/* GCfunc address */
	uint64_t traces;	/* J->trace: GCRef[sizetrace] */
	uint32_t sizetrace;
	uint32_t penaltyslot;
	/* J->param: exits taken before a side trace is tried, and tries;
	 * 0 when the layout does not know them */
	int32_t hotexit, tryside;
	struct jpenalty penalty[JPENALTY_SLOTS];
};

/* Whether the layout knows where jit_State lives. */
bool jstate_supported(const struct lj_layout *lay);

/* Reads the jit_State of the VM whose global_State is g; 0, or -1 when
 * unreadable or inconsistent (sizetrace, penaltyslot out of range). */
int jstate_read(struct mem_reader *mem, const struct lj_layout *lay, uint64_t g,
		struct jstate *out);

#endif
