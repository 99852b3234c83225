/* SPDX-License-Identifier: MIT */
/* The trace compiler's abort reasons (TraceError codes, src/lj_traceerr.h)
 * as `luajit -jv` prints them: jit/v.lua formats vmdef.traceerr[code] with
 * the error's argument, and these strings are that table's. */
#ifndef LBP_TRACEERR_H
#define LBP_TRACEERR_H

#include <stddef.h>

struct lj_layout;

/* How the message takes its argument. */
enum traceerr_arg {
	TRACEERR_ARG_NONE,
	TRACEERR_ARG_INT,	/* %d: an opcode or IR op number */
	TRACEERR_ARG_BCNAME,	/* %s: a bytecode name (2025+ upstream) */
	TRACEERR_ARG_FUNC,	/* %s: a function, as jit/v.lua fmtfunc names it */
};

/* The message format for code in lay's LuaJIT, NULL when out of range. */
const char *traceerr_format(const struct lj_layout *lay, unsigned code);
enum traceerr_arg traceerr_arg(const struct lj_layout *lay, unsigned code);

/* Our short name of code ("NYI_BYTECODE"), for labels and JSON. */
const char *traceerr_name(unsigned code);

/* Writes the message with its argument: arg_int for ARG_INT/BCNAME,
 * arg_str (a function name or bytecode name) for ARG_FUNC/BCNAME; a
 * missing argument prints as "?".  Returns buf. */
char *traceerr_text(const struct lj_layout *lay, unsigned code, int arg_int,
		    const char *arg_str, char *buf, size_t len);

/* The opcode's name as 2025+ upstream's jit/v.lua prints it in "NYI:
 * bytecode %s": six columns, space-padded ("FNEW  "); "?" when unknown. */
char *traceerr_bcname(const struct lj_layout *lay, unsigned op, char *buf, size_t len);

/* The code of "blacklisted" and of "NYI: bytecode", for callers that
 * treat them specially. */
extern const unsigned traceerr_nyi_bytecode;

#endif
