/* SPDX-License-Identifier: MIT */
/* What the name derivation needs to know about LuaJIT bytecode: opcode
 * numbers, operand A's mode and the metamethod an opcode triggers
 * (src/lj_bc.h BCDEF). */
#ifndef LBP_BCMODE_H
#define LBP_BCMODE_H

#include <stdint.h>

struct lj_layout;

/* Opcodes below BC_FUNCF are numbered alike in every supported variant. */
enum {
	BC_MOV = 18, BC_KNIL = 44, BC_UGET = 45, BC_GGET = 54, BC_TGETS = 57,
	BC_FNEW = 51, BC_ITERC = 69,
};

enum bc_amode { BCM_NONE, BCM_DST, BCM_BASE };

/* Metamethods in LuaJIT's MMS order; MM_NONE when an opcode has none. */
enum bc_mm {
	MM_INDEX, MM_NEWINDEX, MM_GC, MM_MODE, MM_EQ, MM_LEN, MM_LT, MM_LE,
	MM_CONCAT, MM_CALL, MM_ADD, MM_SUB, MM_MUL, MM_DIV, MM_MOD, MM_POW,
	MM_UNM, MM_NONE
};

enum bc_amode bc_amode(const struct lj_layout *lay, uint8_t op);
enum bc_mm bc_mm(uint8_t op);
const char *bc_mm_name(enum bc_mm mm);	/* "__index" ... */

static inline uint8_t bc_op(uint32_t ins) { return ins & 0xff; }
static inline uint8_t bc_a(uint32_t ins) { return (ins >> 8) & 0xff; }
static inline uint8_t bc_b(uint32_t ins) { return ins >> 24; }
static inline uint8_t bc_c(uint32_t ins) { return (ins >> 16) & 0xff; }
static inline uint16_t bc_d(uint32_t ins) { return ins >> 16; }

#endif
