// SPDX-License-Identifier: MIT
/* The frame walk (see lua_frames.h).
 *
 * From L->base down: the frame slot below a function's base holds its
 * link (with two-slot frames, GC64, the function sits one slot lower).
 * A link whose low two bits are 0 is the return PC into the calling Lua
 * function; the caller's frame then lies below by the call's A operand
 * plus the frame's own slots.  Other links hold a byte delta to the
 * previous frame (C, pcall, vararg, continuation frames); a
 * continuation (a metamethod called from Lua) keeps its caller's PC two
 * slots (GC64) or one slot below its link. */
#include "heap/lua_frames.h"

#include "heap/heap_mem.h"
#include "luajit/layout.h"

#define MAX_FRAMES	4096

uint64_t lua_frames_proto(const struct heap_ctx *c, uint64_t fn)
{
	const struct lj_layout *lay = c->lay;

	if (!heap_ptr_ok(c, fn) ||
	    (uint8_t)heap_mem_uint(c->mem, fn + lay->gct, 1) != (uint8_t)HT_FUNC ||
	    heap_mem_uint(c->mem, fn + lay->fn_ffid, 1) != 0)
		return 0;
	return heap_ref(c, fn + lay->fn_pc) - lay->sizeof_proto;
}

/* The caller's PC a continuation frame at frame keeps. */
static uint64_t cont_pc(const struct heap_ctx *c, uint64_t frame)
{
	if (c->lay->gc64)
		return heap_mem_uint(c->mem, frame - 16, 8);
	return heap_mem_uint(c->mem, frame - 8, 8) >> 32;
}

int lua_frames_walk(const struct heap_ctx *c, uint64_t L, lua_frame_fn fn, void *ud, bool *torn)
{
	/* L->base and L->top are real pointers whatever the GCRef width. */
	return lua_frames_walk_from(c, L, heap_mem_uint(c->mem, L + c->lay->L_base, 8), fn, ud,
				    torn);
}

int lua_frames_walk_from(const struct heap_ctx *c, uint64_t L, uint64_t base, lua_frame_fn fn,
			 void *ud, bool *torn)
{
	const struct lj_layout *lay = c->lay;
	uint64_t fr2 = lay->gc64 ? 8 : 0;
	uint64_t stack = heap_ref(c, L + lay->L_stack);
	uint64_t top = heap_mem_uint(c->mem, L + lay->L_top, 8);
	uint64_t size = 8ull * (uint32_t)heap_mem_uint(c->mem, L + lay->L_stacksize, 4);
	uint64_t frame = base - 8, hi = top, pc = 0;
	bool varg_above = false;
	int n = 0;

	if (torn)
		*torn = false;
	if (top < base)
		top = base;	/* compiled code runs above the last L->top */
	if (!stack || base < stack + 8 + fr2 || top < base || top > stack + size)
		return -1;
	/* The bottom slot (two with GC64) is the thread's dummy frame. */
	for (int k = 0; k < MAX_FRAMES && frame > stack + fr2; k++) {
		uint64_t link = heap_mem_uint(c->mem, frame, 8), prev;
		struct lua_frame_at f;
		int64_t ftsz;

		if (fr2) {
			f.fn = heap_mem_uint(c->mem, frame - 8, 8) & LJ_GCVMASK;
			ftsz = (int64_t)link;
		} else {
			f.fn = link & 0xffffffffu;
			ftsz = (int32_t)(link >> 32);
		}
		f.base = frame + 8;
		f.hi = hi;
		f.pc = pc;
		/* A vararg function's frame was moved up, above its arguments:
		 * the copy below is the same call (lj_debug.c lj_debug_frame),
		 * and so is a dummy frame of the thread itself. */
		if (!varg_above && f.fn != L && fn(ud, &f))
			return n + 1;
		n += !varg_above && f.fn != L;
		varg_above = (ftsz & FRAME_TYPEP) == FRAME_VARG;
		if ((ftsz & FRAME_TYPE) == FRAME_LUA) {		/* a Lua caller: ftsz is the PC */
			uint64_t lpc = fr2 ? (uint64_t)ftsz : (uint32_t)ftsz;
			uint32_t ins = (uint32_t)heap_mem_uint(c->mem, lpc - 4, 4);

			pc = lpc;
			prev = frame - 8 * (1 + (fr2 ? 1 : 0) + ((ins >> 8) & 0xff));
		} else {
			pc = (ftsz & FRAME_TYPEP) == FRAME_CONT ? cont_pc(c, frame) :
			     varg_above ? pc : 0;
			prev = frame - (uint64_t)(ftsz & ~(int64_t)FRAME_TYPEP);
		}
		if (!ftsz || prev >= frame || prev < stack + fr2) {
			if (torn)
				*torn = true;
			return n;
		}
		if (!varg_above)
			hi = frame - fr2;
		frame = prev;
	}
	if (torn && frame > stack + fr2)
		*torn = true;	/* deeper than MAX_FRAMES: not a stack */
	return n;
}
