// SPDX-License-Identifier: MIT
/* Bytecode operand modes and metamethods (src/lj_bc.h facts). */
#include "luajit/bcmode.h"

#include <stddef.h>

#include "luajit/layout.h"

enum bc_amode bc_amode(const struct lj_layout *lay, uint8_t op)
{
	if (op == 12 || op == 13 || (op >= 18 && op <= 43) || op == 45 ||
	    (op >= 51 && op <= 54) || (op >= 56 && op <= 59))
		return BCM_DST;
	/* vmthref builds insert BNOT..BSAR, all writing A, at 89..95. */
	if (lay->vmthref && op >= 89 && op <= 95)
		return BCM_DST;
	if (op == 44 || op == 63 || (op >= 65 && op <= 73) || (op >= 77 && op <= 84))
		return BCM_BASE;
	return BCM_NONE;
}

enum bc_mm bc_mm(uint8_t op)
{
	if (op <= 1)
		return MM_LT;		/* ISLT ISGE */
	if (op <= 3)
		return MM_LE;		/* ISLE ISGT */
	if (op <= 11)
		return MM_EQ;		/* ISEQV .. ISNEP */
	if (op == 20)
		return MM_UNM;
	if (op == 21)
		return MM_LEN;
	if (op >= 22 && op <= 36)	/* ADD/SUB/MUL/DIV/MOD x VN, NV, VV */
		return (enum bc_mm)(MM_ADD + (op - 22) % 5);
	if (op == 37)
		return MM_POW;
	if (op == 38)
		return MM_CONCAT;
	if (op >= 51 && op <= 53)	/* FNEW TNEW TDUP */
		return MM_GC;
	if (op == 54 || (op >= 56 && op <= 59))
		return MM_INDEX;	/* GGET TGET* */
	if (op == 55 || (op >= 60 && op <= 64))
		return MM_NEWINDEX;	/* GSET TSET* */
	if (op >= 65 && op <= 70)
		return MM_CALL;		/* CALLM .. ITERN */
	return MM_NONE;
}

const char *bc_mm_name(enum bc_mm mm)
{
	static const char *const names[] = {
		"__index", "__newindex", "__gc", "__mode", "__eq", "__len", "__lt",
		"__le", "__concat", "__call", "__add", "__sub", "__mul", "__div",
		"__mod", "__pow", "__unm",
	};

	return mm < MM_NONE ? names[mm] : NULL;
}
