// SPDX-License-Identifier: MIT
/* One coroutine for `dump` (see dump_thread.h): its status and frames.
 * Values of locals are in dump_value.c. */
#include "heap/dump_thread.h"

#include <stdlib.h>
#include <string.h>

#include "heap/heap_mem.h"
#include "heap/heap_refs.h"
#include "heap/heap_stack.h"
#include "luajit/layout.h"
#include "heap/lua_frames.h"
#include "luajit/luaobj.h"
#include "luajit/varinfo.h"

#define LUA_YIELD	1
#define FF_C		1	/* GCfunc.ffid of a C function; Lua is 0 */

const char *dump_status_name(enum dump_status s)
{
	static const char *const names[] = { "running", "suspended", "normal", "dead", "idle" };

	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

/* The lua_frame of the function at fn with saved PC pc (0: unknown);
 * -1 when fn is not a function. */
static int frame_of(const struct heap_ctx *c, uint64_t fn, uint64_t pc, struct lua_frame *out)
{
	const struct lj_layout *lay = c->lay;
	uint8_t ffid;

	if (!heap_ptr_ok(c, fn) || (uint8_t)heap_mem_uint(c->mem, fn + lay->gct, 1) != HT_FUNC)
		return -1;
	ffid = (uint8_t)heap_mem_uint(c->mem, fn + lay->fn_ffid, 1);
	memset(out, 0, sizeof(*out));
	if (ffid == 0) {
		uint64_t pt = lua_frames_proto(c, fn);

		if (!heap_ptr_ok(c, pt))
			return -1;
		out->id = (uint64_t)FRAME_KIND_LUA << FRAME_KIND_SHIFT | pt;
		if (pc && heap_proto_pos(c, pt, pc) >= 0)
			out->pc_off = (uint32_t)(pc - pt);
	} else if (ffid == FF_C) {
		out->id = (uint64_t)FRAME_KIND_C << FRAME_KIND_SHIFT |
			  (heap_mem_uint(c->mem, fn + lay->fn_cfunc, 8) & FRAME_ID_MASK);
	} else {
		out->id = (uint64_t)FRAME_KIND_FF << FRAME_KIND_SHIFT | ffid;
	}
	return 0;
}

struct collect {
	const struct heap_ctx *c;
	struct dump_thread_raw *t;
	uint64_t top_pc;	/* the running thread's top PC, from its C frame */
};

static int collect_frame(void *ud, const struct lua_frame_at *f)
{
	struct collect *k = ud;
	struct dump_thread_raw *t = k->t;
	uint64_t pc = t->n == 0 ? k->top_pc : f->pc;

	if (t->n == DUMP_MAX_FRAMES) {
		t->cut = true;
		return 1;
	}
	if (frame_of(k->c, f->fn, pc, &t->frames[t->n])) {
		t->torn = true;
		return 1;
	}
	t->fn[t->n] = f->fn;
	t->base[t->n] = f->base;
	t->hi[t->n] = f->hi;
	t->n++;
	return 0;
}

/* While compiled code runs (g->vmstate is a trace number), the running
 * thread's frames start at g->jit_base and the trace's first instruction
 * stands for where its top function is: *base and the PC after that
 * instruction; 0 when no trace runs or it cannot be read. */
static uint64_t trace_top(const struct heap_ctx *c, uint64_t stack, uint64_t *base)
{
	const struct lj_layout *lay = c->lay;
	int32_t traceno = (int32_t)heap_mem_uint(c->mem, c->g + lay->g_vmstate, 4);
	uint64_t jb = heap_ref(c, c->g + lay->g_jit_base), traces, tr, pc;
	uint32_t size;

	if (traceno <= 0 || !lay->g_trace || !jb || jb <= stack)
		return 0;
	traces = heap_mem_uint(c->mem, c->g + lay->g_trace, 8);
	size = (uint32_t)heap_mem_uint(c->mem, c->g + lay->g_sizetrace, 4);
	if ((uint32_t)traceno >= size || !traces)
		return 0;
	tr = heap_ref(c, traces + (uint64_t)traceno * heap_refsize(c));
	if (!heap_ptr_ok(c, tr) || (uint8_t)heap_mem_uint(c->mem, tr + lay->gct, 1) != HT_TRACE)
		return 0;
	pc = heap_ref(c, tr + lay->tr_startpc);
	*base = jb;
	return pc ? pc + 4 : 0;
}

/* The PC the VM saved in the running thread's innermost C frame: where
 * its top Lua function was when it last called out (or an error or hook
 * ran); 0 when none. */
static uint64_t cframe_pc(const struct heap_ctx *c, uint64_t L)
{
	uint64_t cf = heap_mem_uint(c->mem, L + c->lay->L_cframe, 8) & CFRAME_RAWMASK;

	return cf ? heap_ref(c, cf + c->lay->cframe_pc) : 0;
}

static enum dump_status status_of(const struct heap_ctx *c, struct dump_thread_raw *t,
				  uint64_t stack, uint64_t base, uint64_t top)
{
	uint64_t first_base = stack + (c->lay->gc64 ? 16 : 8);
	bool active = heap_mem_uint(c->mem, t->L + c->lay->L_cframe, 8) != 0;

	if (t->current && active)
		return DUMP_RUNNING;
	if (t->lua_status == LUA_YIELD)
		return DUMP_SUSPENDED;
	if (t->lua_status)
		return DUMP_DEAD;
	if (base > first_base)
		return DUMP_NORMAL;
	if (t->main)
		return DUMP_IDLE;
	return top == base ? DUMP_DEAD : DUMP_SUSPENDED;
}

/* A coroutine never resumed holds its function at its base. */
static void read_fresh(const struct heap_ctx *c, struct dump_thread_raw *t, uint64_t base)
{
	uint64_t fn = heap_tv_gcobj(c, heap_mem_uint(c->mem, base, 8));

	t->fresh = true;
	if (fn && !frame_of(c, fn, 0, &t->frames[0])) {
		t->fn[0] = fn;
		t->base[0] = t->hi[0] = base + 8;
		t->n = 1;
	}
}

int dump_thread_read(const struct heap_ctx *c, uint64_t L, struct dump_thread_raw *t)
{
	const struct lj_layout *lay = c->lay;
	struct collect k = { c, t, 0 };
	uint64_t stack, base, top;

	memset(t, 0, sizeof(*t));
	t->L = L;
	if (!heap_ptr_ok(c, L) || (uint8_t)heap_mem_uint(c->mem, L + lay->gct, 1) != HT_THREAD)
		return -1;
	stack = heap_ref(c, L + lay->L_stack);
	base = heap_mem_uint(c->mem, L + lay->L_base, 8);
	top = heap_mem_uint(c->mem, L + lay->L_top, 8);
	t->lua_status = (uint8_t)heap_mem_uint(c->mem, L + lay->L_status, 1);
	t->main = heap_ref(c, c->g + lay->g_mainthref) == L;
	t->current = heap_ref(c, c->g + lay->g_cur_L) == L;
	t->status = status_of(c, t, stack, base, top);
	if (t->status == DUMP_SUSPENDED && !t->lua_status) {
		read_fresh(c, t, base);
		return 0;
	}
	if (t->status == DUMP_IDLE || (t->status == DUMP_DEAD && !t->lua_status))
		return 0;
	if (t->status == DUMP_RUNNING && !(k.top_pc = trace_top(c, stack, &base)))
		k.top_pc = cframe_pc(c, L);
	if (lua_frames_walk_from(c, L, base, collect_frame, &k, &t->torn) < 0)
		t->torn = true;
	return 0;
}

int dump_frame_locals(const struct heap_ctx *c, const struct dump_thread_raw *t, uint32_t i,
		      size_t width, dump_local_fn fn, void *ud)
{
	const struct lua_frame *f = &t->frames[i];
	uint64_t pt = f->id & FRAME_ID_MASK;
	uint8_t *vi;
	uint32_t len;
	int64_t pos;
	int n = 0;

	if (i >= t->n || f->id >> FRAME_KIND_SHIFT != FRAME_KIND_LUA || !f->pc_off ||
	    (pos = heap_proto_pos(c, pt, pt + f->pc_off)) < 0 || !(vi = malloc(VARINFO_MAX)))
		return 0;
	len = heap_proto_varinfo(c, pt, vi);
	for (uint64_t s = t->base[i]; len && s < t->hi[i]; s += 8) {
		const char *name = varinfo_local(vi, len, (uint32_t)pos,
						 (uint32_t)((s - t->base[i]) / 8));
		char value[DUMP_VALUE];

		if (!name)
			break;	/* the slots above hold no live local */
		if (*name == '(')
			continue;	/* a for loop's hidden state */
		dump_value_short(c, heap_mem_uint(c->mem, s, 8), width, value, sizeof(value));
		fn(ud, name, value);
		n++;
	}
	free(vi);
	return n;
}
