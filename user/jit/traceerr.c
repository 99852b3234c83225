// SPDX-License-Identifier: MIT
/* The table of trace abort messages, in src/lj_traceerr.h order (the
 * TraceError code is the index).  Checked against the jit/vmdef.lua
 * traceerr table of Debian's 2.1 (2022), OpenResty's luajit2 (2024),
 * Tarantool 2.6's fork (the copy inside its binary) and LuaJIT 2.1 head
 * (2026): the only difference is that head names the
 * bytecode of "NYI: bytecode" instead of printing its number. */
#include "jit/traceerr.h"

#include <stdio.h>
#include <string.h>

#include "luajit/layout.h"

/* X(our name, argument, message) */
#define TRACEERR_TABLE(X)                                                    \
	X(RECORD_ERROR, NONE, "error thrown or hook called during recording") \
	X(TRACE_TOO_SHORT, NONE, "trace too short")                          \
	X(TRACE_TOO_LONG, NONE, "trace too long")                            \
	X(TRACE_TOO_DEEP, NONE, "trace too deep")                            \
	X(TOO_MANY_SNAPSHOTS, NONE, "too many snapshots")                    \
	X(BLACKLISTED, NONE, "blacklisted")                                  \
	X(RETRY, NONE, "retry recording")                                    \
	X(NYI_BYTECODE, INT, "NYI: bytecode %d")                             \
	X(LEAVING_LOOP, NONE, "leaving loop in root trace")                  \
	X(INNER_LOOP, NONE, "inner loop in root trace")                      \
	X(LOOP_UNROLL, NONE, "loop unroll limit reached")                    \
	X(BAD_ARG_TYPE, NONE, "bad argument type")                           \
	X(JIT_OFF_FUNC, NONE, "JIT compilation disabled for function")       \
	X(CALL_UNROLL, NONE, "call unroll limit reached")                    \
	X(DOWN_RECURSION, NONE, "down-recursion, restarting")                \
	X(NYI_FASTFUNC_VARIANT, FUNC, "NYI: unsupported variant of FastFunc %s") \
	X(NYI_RETURN_LOWER, NONE, "NYI: return to lower frame")              \
	X(NIL_NAN_KEY, NONE, "store with nil or NaN key")                    \
	X(NO_METAMETHOD, NONE, "missing metamethod")                         \
	X(LOOPING_INDEX, NONE, "looping index lookup")                       \
	X(NYI_MIXED_TABLE, NONE, "NYI: mixed sparse/dense table")            \
	X(SYMBOL_NOT_CACHED, NONE, "symbol not in cache")                    \
	X(NYI_CTYPE_CONV, NONE, "NYI: unsupported C type conversion")        \
	X(NYI_CFUNC_TYPE, NONE, "NYI: unsupported C function type")          \
	X(GUARD_ALWAYS_FAILS, NONE, "guard would always fail")               \
	X(TOO_MANY_PHIS, NONE, "too many PHIs")                              \
	X(TYPE_INSTABILITY, NONE, "persistent type instability")             \
	X(MCODE_ALLOC, NONE, "failed to allocate mcode memory")              \
	X(MCODE_TOO_LONG, NONE, "machine code too long")                     \
	X(MCODE_LIMIT, NONE, "hit mcode limit (retrying)")                   \
	X(TOO_MANY_SPILLS, NONE, "too many spill slots")                     \
	X(BAD_REGALLOC, NONE, "inconsistent register allocation")            \
	X(NYI_IR_INS, INT, "NYI: cannot assemble IR instruction %d")         \
	X(NYI_PHI_SHUFFLE, NONE, "NYI: PHI shuffling too complex")           \
	X(NYI_COALESCE, NONE, "NYI: register coalescing too complex")

#define X_NAME(n, a, m) #n,
#define X_ARG(n, a, m) TRACEERR_ARG_##a,
#define X_MSG(n, a, m) m,
#define X_CODE(n, a, m) TE_##n,

enum { TRACEERR_TABLE(X_CODE) TE__MAX };

static const char *const te_names[] = { TRACEERR_TABLE(X_NAME) };
static const enum traceerr_arg te_args[] = { TRACEERR_TABLE(X_ARG) };
static const char *const te_msgs[] = { TRACEERR_TABLE(X_MSG) };

const unsigned traceerr_nyi_bytecode = TE_NYI_BYTECODE;

/* Opcode names in src/lj_bc.h order up to JMP (alike everywhere), then
 * the tail of the classic numbering and of 2025+ upstream's, which adds
 * the bit operations before FUNCF. */
static const char bc_head[] =
	"ISLT ISGE ISLE ISGT ISEQV ISNEV ISEQS ISNES ISEQN ISNEN ISEQP ISNEP ISTC "
	"ISFC IST ISF ISTYPE ISNUM MOV NOT UNM LEN ADDVN SUBVN MULVN DIVVN MODVN "
	"ADDNV SUBNV MULNV DIVNV MODNV ADDVV SUBVV MULVV DIVVV MODVV POW CAT KSTR "
	"KCDATA KSHORT KNUM KPRI KNIL UGET USETV USETS USETN USETP UCLO FNEW TNEW "
	"TDUP GGET GSET TGETV TGETS TGETB TGETR TSETV TSETS TSETB TSETM TSETR "
	"CALLM CALL CALLMT CALLT ITERC ITERN VARG ISNEXT RETM RET RET0 RET1 FORI "
	"JFORI FORL IFORL JFORL ITERL IITERL JITERL LOOP ILOOP JLOOP JMP ";
static const char bc_bitops[] = "BNOT BAND BOR BXOR BSHL BSHR BSAR ";
static const char bc_tail[] = "FUNCF IFUNCF JFUNCF FUNCV IFUNCV JFUNCV FUNCC FUNCCW ";

/* The n-th space-separated word of list into buf; n is decremented by the
 * words passed, so lists can be chained.  1 when found. */
static int nth_word(const char *list, unsigned *n, char *buf, size_t len)
{
	for (const char *p = list; *p; (*n)--) {
		size_t w = strcspn(p, " ");

		if (*n == 0) {
			snprintf(buf, len, "%.*s", (int)w, p);
			return 1;
		}
		p += w + 1;
	}
	return 0;
}

char *traceerr_bcname(const struct lj_layout *lay, unsigned op, char *buf, size_t len)
{
	unsigned n = op;
	char name[16] = "";

	if (!nth_word(bc_head, &n, name, sizeof(name)) &&
	    !(lay && lay->vmthref && nth_word(bc_bitops, &n, name, sizeof(name))))
		nth_word(bc_tail, &n, name, sizeof(name));
	/* jit/v.lua cuts the name out of vmdef.bcnames: six columns, padded. */
	snprintf(buf, len, "%-6s", name[0] ? name : "?");
	return buf;
}

/* 2025+ upstream (vmthref in the layout table) prints the opcode name. */
static int names_bytecode(const struct lj_layout *lay)
{
	return lay && lay->vmthref;
}

const char *traceerr_format(const struct lj_layout *lay, unsigned code)
{
	if (code >= TE__MAX)
		return NULL;
	if (code == TE_NYI_BYTECODE && names_bytecode(lay))
		return "NYI: bytecode %s";
	return te_msgs[code];
}

enum traceerr_arg traceerr_arg(const struct lj_layout *lay, unsigned code)
{
	if (code >= TE__MAX)
		return TRACEERR_ARG_NONE;
	if (code == TE_NYI_BYTECODE && names_bytecode(lay))
		return TRACEERR_ARG_BCNAME;
	return te_args[code];
}

const char *traceerr_name(unsigned code)
{
	return code < TE__MAX ? te_names[code] : "UNKNOWN";
}

char *traceerr_text(const struct lj_layout *lay, unsigned code, int arg_int,
		    const char *arg_str, char *buf, size_t len)
{
	const char *fmt = traceerr_format(lay, code);
	const char *pct;
	char arg[64];

	if (!len)
		return buf;
	if (!fmt) {
		snprintf(buf, len, "trace error %u", code);
		return buf;
	}
	switch (traceerr_arg(lay, code)) {
	case TRACEERR_ARG_NONE:
		snprintf(buf, len, "%s", fmt);
		return buf;
	case TRACEERR_ARG_INT:
		if (arg_int >= 0)
			snprintf(arg, sizeof(arg), "%d", arg_int);
		else
			snprintf(arg, sizeof(arg), "?");
		break;
	default:
		snprintf(arg, sizeof(arg), "%s", arg_str ? arg_str : "?");
		break;
	}
	/* Every format has one %d or %s: splice the argument in. */
	pct = strchr(fmt, '%');
	snprintf(buf, len, "%.*s%s%s", (int)(pct - fmt), fmt, arg, pct + 2);
	return buf;
}
