/* Names of a thread's stack slots (see heap_stack.h).
 *
 * From L->base down: the frame slot below a function's base holds its
 * link (with two-slot frames, GC64, the function sits one slot lower).
 * A link whose low two bits are 0 is the return PC into the calling Lua
 * function; the caller's frame then lies below by the call's A operand
 * plus the frame's own slots.  Other links hold a byte delta to the
 * previous frame (C, pcall, vararg, continuation frames).  A Lua caller's
 * position is the instruction before its return PC. */
#include "target/heap_stack.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/heap_mem.h"
#include "target/heap_refs.h"
#include "target/layout.h"
#include "target/varinfo.h"

#define MAX_FRAMES	4096
#define FRAME_TYPE	3	/* link & FRAME_TYPE: 0 is a Lua caller */
#define FRAME_TYPEP	7	/* the bits below a delta link's byte count */
#define GCPTR_MASK	((1ull << 47) - 1)

struct frame_walk {
	const struct heap_ctx *c;
	uint64_t stack;
	char (*names)[HEAP_SLOT_NAME];
	size_t n;
	uint8_t *vi;		/* varinfo of the function being named */
};

/* The Lua prototype of the function at fn, or 0 (a C function, garbage). */
static uint64_t lua_proto(const struct heap_ctx *c, uint64_t fn)
{
	const struct lj_layout *lay = c->lay;

	if (!heap_ptr_ok(c, fn) ||
	    (uint8_t)heap_mem_uint(c->mem, fn + lay->gct, 1) != (uint8_t)HT_FUNC ||
	    heap_mem_uint(c->mem, fn + lay->fn_ffid, 1) != 0)
		return 0;
	return heap_ref(c, fn + lay->fn_pc) - lay->sizeof_proto;
}

/* Names the slots [lo, hi) of the frame of fn, whose caller-side position
 * is the instruction before ret (0: unknown, nothing named). */
static void name_frame(struct frame_walk *w, uint64_t fn, uint64_t ret, uint64_t lo, uint64_t hi)
{
	const struct heap_ctx *c = w->c;
	const struct lj_layout *lay = c->lay;
	uint64_t pt = ret ? lua_proto(c, fn) : 0, bc, vi, end, pos;
	uint32_t sizebc, sizept;
	char where[64];

	if (!pt)
		return;
	bc = pt + lay->sizeof_proto;
	sizebc = (uint32_t)heap_mem_uint(c->mem, pt + lay->pt_sizebc, 4);
	sizept = (uint32_t)heap_mem_uint(c->mem, pt + lay->pt_sizept, 4);
	vi = heap_ref(c, pt + lay->pt_varinfo);
	end = pt + sizept;
	if (ret <= bc || ret > bc + 4ull * sizebc || !vi || vi >= end || end - vi > VARINFO_MAX ||
	    heap_mem_read(c->mem, vi, w->vi, end - vi))
		return;
	pos = (ret - bc) / 4 - 1;
	heap_proto_where(c, pt, where, sizeof(where));
	for (uint64_t s = lo; s < hi; s += 8) {
		uint64_t i = (s - w->stack) / 8;
		const char *name = varinfo_local(w->vi, end - vi, (uint32_t)pos,
						 (uint32_t)((s - lo) / 8));

		if (name && i < w->n)
			snprintf(w->names[i], HEAP_SLOT_NAME, "%.48s local %.40s", where, name);
	}
}

void heap_stack_names(const struct heap_ctx *c, uint64_t L, char (*names)[HEAP_SLOT_NAME],
		      size_t n)
{
	const struct lj_layout *lay = c->lay;
	uint64_t fr2 = lay->gc64 ? 8 : 0;
	struct frame_walk w = { c, heap_ref(c, L + lay->L_stack), names, n, malloc(VARINFO_MAX) };
	uint64_t base = heap_mem_uint(c->mem, L + lay->L_base, 8);
	uint64_t top = heap_mem_uint(c->mem, L + lay->L_top, 8);
	uint64_t frame = base - 8, hi = top, ret = 0;

	memset(names, 0, n * sizeof(*names));
	if (!w.vi || base < w.stack + 8 + fr2 || top < base || (top - w.stack) / 8 > n) {
		free(w.vi);
		return;
	}
	for (int k = 0; k < MAX_FRAMES && frame >= w.stack + fr2; k++) {
		uint64_t link = heap_mem_uint(c->mem, frame, 8), fn, prev;
		int64_t ftsz;

		if (fr2) {
			fn = heap_mem_uint(c->mem, frame - 8, 8) & GCPTR_MASK;
			ftsz = (int64_t)link;
		} else {
			fn = link & 0xffffffffu;
			ftsz = (int32_t)(link >> 32);
		}
		name_frame(&w, fn, ret, frame + 8, hi);
		if ((ftsz & FRAME_TYPE) == 0) {		/* a Lua caller: ftsz is the PC */
			uint64_t pc = fr2 ? (uint64_t)ftsz : (uint32_t)ftsz;
			uint32_t ins = (uint32_t)heap_mem_uint(c->mem, pc - 4, 4);

			ret = pc;
			prev = frame - 8 * (1 + (fr2 ? 1 : 0) + ((ins >> 8) & 0xff));
		} else {
			ret = 0;
			prev = frame - (uint64_t)(ftsz & ~(int64_t)FRAME_TYPEP);
		}
		if (!ftsz || prev >= frame || prev < w.stack)
			break;
		hi = frame - fr2;
		frame = prev;
	}
	free(w.vi);
}
