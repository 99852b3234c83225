/* SPDX-License-Identifier: MIT */
/* The frames of a thread's Lua stack, read from target memory by their
 * links (src/lj_frame.h), from the top frame (the one at L->base) down:
 * the one walk both the heap's slot names (heap_stack.c) and `dump`
 * (dump_thread.c) use.  The target may run while it is read: a link
 * that makes no sense ends the walk and is reported as torn. */
#ifndef LBP_LUA_FRAMES_H
#define LBP_LUA_FRAMES_H

#include <stdbool.h>
#include <stdint.h>

#include "heap/heap_obj.h"

/* One frame, as read (nothing in it is checked beyond the links). */
struct lua_frame_at {
	uint64_t fn;		/* the GCfunc in the frame's function slot */
	uint64_t base;		/* its first slot (the callee's base) */
	uint64_t hi;		/* one past its last slot: the next frame's, or L->top */
	/* The saved PC of the function's current instruction (pointing just
	 * after it, LuaJIT's convention), taken from the link of the frame
	 * above when that frame was called from Lua or is a metamethod's
	 * continuation; 0 when unknown (the top frame, or under a C frame). */
	uint64_t pc;
};

/* Called per frame, top first; a non-zero return ends the walk. */
typedef int (*lua_frame_fn)(void *ud, const struct lua_frame_at *f);

/* Walks the frames of thread L.  Returns the frames visited; *torn (may
 * be NULL) is set when a link pointed nowhere plausible before the
 * stack's bottom (a stack changing under the read), -1 when L's stack
 * bounds are unreadable. */
int lua_frames_walk(const struct heap_ctx *c, uint64_t L, lua_frame_fn fn, void *ud, bool *torn);

/* The same from base instead of L->base: the running thread's base while
 * compiled code runs is g->jit_base (L->base is as of its last call out). */
int lua_frames_walk_from(const struct heap_ctx *c, uint64_t L, uint64_t base, lua_frame_fn fn,
			 void *ud, bool *torn);

/* The Lua prototype of the function at fn (checked: a function object, not
 * a C or fast function), or 0. */
uint64_t lua_frames_proto(const struct heap_ctx *c, uint64_t fn);

#endif
