/* SPDX-License-Identifier: MIT */
/* Frames and stacks printed by LuaJIT's lj_debug_dumpstack rules, so that
 * keys match what jit.p prints from inside the process. */
#ifndef LBP_FRAME_FMT_H
#define LBP_FRAME_FMT_H

#include <stdbool.h>
#include <stdint.h>

#include "model/profile.h"
#include "base/strbuf.h"

/* Appends one frame for format letter c ('f', 'F' or 'l').  pathstrip
 * keeps only the file name of "@path" chunks (jit.p's default; 'p' turns it
 * off).  Fast functions print their vmdef.lua name where jit.p substitutes
 * it for [builtin#N]. */
void frame_put(struct strbuf *sb, const struct frame_sym *f, char c, bool pathstrip);

/* Appends the stack as luaJIT_profile_dumpstack(L, fmt, depth) formats it:
 * depth > 0 prints levels 0..depth-1 from the top, depth < 0 prints levels
 * -depth-1..0 from the bottom; letters f F l p Z are directives, every other
 * byte is copied.  frames[0] is the top of the stack. */
void stack_dump(struct strbuf *sb, const struct frame_sym *const *frames,
		uint32_t nframes, const char *fmt, int depth);

/* Appends p as lj_strfmt_putptr does: "NULL", else 0x and 8, 10, 12 ...
 * zero-padded lower-case hex digits. */
void put_pointer(struct strbuf *sb, uint64_t p);

#endif
