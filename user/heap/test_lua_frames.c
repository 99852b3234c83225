// SPDX-License-Identifier: MIT
/* The frame walk on stacks built by hand, GC64 (two-slot frames) and
 * non-GC64: a C function at the bottom (a protected call's delta link),
 * a Lua function it called (a C delta link), a Lua function that one
 * called (a Lua link: the return PC, the call's A operand), a vararg
 * function's moved frame, and a link bent to nothing (torn). */
#include <stdio.h>
#include <string.h>

#include "base/unit.h"
#include "heap/heap_mem.h"
#include "heap/lua_frames.h"
#include "proc/memory.h"
#include "heap/test_heap_image.h"

#define HI_BC		0x5800		/* a call instruction: BC_CALL A=3 */
#define MAXF		8

static struct heap_image im;

struct seen {
	struct lua_frame_at f[MAXF];
	int n;
};

static int collect(void *ud, const struct lua_frame_at *f)
{
	struct seen *s = ud;

	if (s->n < MAXF)
		s->f[s->n++] = *f;
	return 0;
}

/* Writes the frame whose link slot is slot: fn, and link (a PC or a
 * typed delta). */
static void frame_at(unsigned slot, uint64_t fn_off, uint64_t link)
{
	uint64_t at = HI_STACK + 8ull * slot;

	if (im.lay->gc64) {
		hi_put(&im, at - 8, im.base + fn_off, 8);
		hi_put(&im, at, link, 8);
	} else {
		hi_put(&im, at, im.base + fn_off, 4);
		hi_put(&im, at + 4, link, 4);
	}
}

static void walk(const struct lj_layout *lay, const char *w, bool varg, bool bend)
{
	unsigned fr2 = lay->gc64 ? 1 : 0;
	/* Link slots: A's above the dummy bottom frame, B's above A's, C's
	 * above B's by the call's A operand (3) plus the link and fr2 slots. */
	unsigned a = 1 + 2 * fr2, b = a + 3 + fr2, c = b + 4 + fr2, top = c + 2;
	uint64_t pc;
	struct mem_region r;
	struct mem_reader *mem;
	struct heap_ctx ctx = { 0 };
	struct seen s = { .n = 0 };
	bool torn = true;
	char name[128];
	int n;

	heap_image_build(&im, lay);
	pc = im.base + HI_BC + 4;
	hi_put(&im, HI_GG + lay->L_stacksize, 32, 4);
	hi_put(&im, HI_BC, 0x0300 | 0x41, 4);	/* A = 3 */
	frame_at(a, HI_CFUNC, 8ull * (a - fr2) | 5);		/* FRAME_CP down to the dummy */
	frame_at(b, HI_T1, 8ull * (b - a) | 1);		/* FRAME_C down to A */
	frame_at(c, HI_T2, lay->gc64 ? pc : (uint32_t)pc);	/* a Lua caller: B */
	if (varg) {		/* C moved up by 2 slots above its varargs */
		frame_at(c + 2, HI_T2, 16 | 3);
		top += 2;
	}
	if (bend)
		frame_at(b, HI_T1, 0);
	hi_put(&im, HI_GG + lay->L_base, im.base + HI_STACK + 8ull * (top - 1), 8);
	hi_put(&im, HI_GG + lay->L_top, im.base + HI_STACK + 8ull * (top + 1), 8);
	r = (struct mem_region){ im.base, im.b, HI_SIZE };
	mem = mem_open_image(&r, 1);
	ctx.lay = lay;
	ctx.mem = heap_mem_open(mem);
	n = lua_frames_walk(&ctx, im.base + HI_GG, collect, &s, &torn);
	if (bend) {
		snprintf(name, sizeof(name), "%s: a zero link ends the walk, torn", w);
		CHECK(name, n == 2 && s.n == 2 && torn);
	} else {
		snprintf(name, sizeof(name), "%s%s: three frames, not torn", w, varg ? " vararg" : "");
		CHECK(name, n == 3 && s.n == 3 && !torn);
		snprintf(name, sizeof(name), "%s%s: functions top first", w, varg ? " vararg" : "");
		CHECK(name, s.f[0].fn == im.base + HI_T2 && s.f[1].fn == im.base + HI_T1 &&
			    s.f[2].fn == im.base + HI_CFUNC);
		snprintf(name, sizeof(name), "%s%s: the caller's PC from the Lua link only", w,
			 varg ? " vararg" : "");
		CHECK(name, s.f[0].pc == 0 && s.f[1].pc == pc && s.f[2].pc == 0);
		snprintf(name, sizeof(name), "%s%s: slots between frames", w, varg ? " vararg" : "");
		CHECK(name, s.f[1].base == im.base + HI_STACK + 8ull * (b + 1) &&
			    s.f[1].hi == im.base + HI_STACK + 8ull * (c - fr2) &&
			    s.f[0].base == im.base + HI_STACK + 8ull * (top - 1));
	}
	heap_mem_close(ctx.mem);
	mem_close(mem);
}

int main(void)
{
	for (int i = 0; i < 2; i++) {
		const struct lj_layout *lay = layout_at(i ? 3 : 0);
		const char *w = i ? "non-gc64" : "gc64";

		walk(lay, w, false, false);
		walk(lay, w, true, false);
		walk(lay, w, false, true);
	}
	return unit_failed ? 1 : 0;
}
