/* SPDX-License-Identifier: MIT */
/* The JIT health report (--jit): for the hot functions, ranked by CPU
 * share, how their samples split between compiled code, the interpreter
 * and the JIT compiler, the traces that start in them, the trace aborts
 * seen for them with LuaJIT's own message text, and their blacklisted
 * loops; and the CI gate (--fail-if-interpreted). */
#ifndef LBP_VIEW_JIT_H
#define LBP_VIEW_JIT_H

#include <stdio.h>

#include "model/profile.h"
#include "sample/jitwatch.h"

struct view_jit_opts {
	double hot_pct;		/* a function is hot from this share of all samples */
	double fail_interp_pct;	/* gate: < 0 off */
	int max_funcs;		/* hot functions listed at most */
};

void view_jit_opts_init(struct view_jit_opts *o);

/* The function a sample is charged to: its topmost Lua frame as
 * "chunk:first line" (jit.p's 'f' form, unnamed); -1 when it ran no Lua. */
int view_jit_key(const struct sample *s, char *buf, size_t len);

/* An abort of the function key, one with its argument first; NULL. */
const struct jw_abort *view_jit_abort_of(const struct jw_result *r, const char *key);

/* Writes the report to out, and the gate's verdict (one line per hot
 * function over the limit, with its abort reasons) to gate_out.  Returns
 * -1 when writing failed, 1 when the gate failed, else 0. */
int view_jit_write(FILE *out, FILE *gate_out, const struct profile *p,
		   const struct jw_result *r, const struct view_jit_opts *o);

#endif
