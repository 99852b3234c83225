/* SPDX-License-Identifier: MIT */
/* Bytecode the trace compiler gave up on: src/lj_trace.c blacklist_pc
 * rewrites a loop or function header into its I* form (ILOOP, IFORL,
 * IITERL, IFUNCF, IFUNCV: src/lj_bc.h) so it is never counted as hot
 * again.  These readers find a prototype from a PC inside it and list its
 * blacklisted instructions. */
#ifndef LBP_JBLACK_H
#define LBP_JBLACK_H

#include <stdint.h>

struct lj_layout;
struct mem_reader;

/* Standard opcodes of the loop headers (src/lj_bc.h; alike in every
 * supported 2.1 variant). */
enum { JBC_FORL = 79, JBC_IFORL = 80, JBC_ITERL = 82, JBC_IITERL = 83,
       JBC_LOOP = 85, JBC_ILOOP = 86, JBC_JLOOP = 87 };

struct jblack_ins {
	uint64_t pc;		/* address of the instruction */
	uint32_t pos;		/* its index in the bytecode */
	uint8_t op;		/* the I* opcode now there */
};

/* The GCproto whose bytecode holds pc, found by walking back to its
 * FUNCF/FUNCV header; 0 when none is found within max_back instructions. */
uint64_t jblack_proto_of(struct mem_reader *mem, const struct lj_layout *lay, uint64_t pc,
			 uint32_t max_back);

/* Whether op is a blacklisted form, and what it was ("FORL" ...). */
const char *jblack_name(const struct lj_layout *lay, uint8_t op);

/* Lists up to max blacklisted instructions of the prototype pt; returns
 * how many there are (more than max when cut), -1 when unreadable. */
int jblack_scan(struct mem_reader *mem, const struct lj_layout *lay, uint64_t pt,
		struct jblack_ins *out, int max);

#endif
