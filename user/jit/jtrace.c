// SPDX-License-Identifier: MIT
/* Reading GCtrace (src/lj_jit.h) out of target memory. */
#include "jit/jtrace.h"

#include <string.h>

#include "jit/jstate.h"
#include "luajit/layout.h"
#include "proc/memory.h"

/* The names src/lib_jit.c jit_util_traceinfo gives (jit/v.lua prints them). */
static const char *const link_names[JLINK__MAX] = {
	"none", "root", "loop", "tail-recursion", "up-recursion", "down-recursion",
	"interpreter", "return", "stitch",
};

const char *jtrace_link_name(unsigned linktype)
{
	return linktype < JLINK__MAX ? link_names[linktype] : "?";
}

static uint16_t u16(const uint8_t *b, unsigned off)
{
	return (uint16_t)(b[off] | b[off + 1] << 8);
}

int jtrace_read(struct mem_reader *mem, const struct lj_layout *lay,
		const struct jstate *js, unsigned n, struct jtrace *out)
{
	uint8_t b[128];
	uint64_t T = 0;
	size_t len = (size_t)lay->tr_linktype + 1;

	memset(out, 0, sizeof(*out));
	if (n == 0 || n >= js->sizetrace || !js->traces || len > sizeof(b))
		return -1;
	if (layout_read_ref(mem, lay, js->traces + (uint64_t)n * (lay->gc64 ? 8 : 4), &T))
		return -1;
	if (!T)
		return 1;
	if (mem_read(mem, T, b, len))
		return -1;
	out->traceno = u16(b, lay->tr_traceno);
	if (out->traceno != n)
		return -1;
	out->link = u16(b, lay->tr_link);
	out->root = u16(b, lay->tr_root);
	out->nextroot = u16(b, lay->tr_nextroot);
	out->nextside = u16(b, lay->tr_nextside);
	out->nchild = u16(b, lay->tr_nchild);
	out->linktype = b[lay->tr_linktype];
	out->nsnap = u16(b, lay->tr_nsnap);
	memcpy(&out->nins, b + lay->tr_nins, 4);
	memcpy(&out->nsnapmap, b + lay->tr_nsnapmap, 4);
	memcpy(&out->nk, b + lay->tr_nk, 4);
	/* Native pointers in every x86-64 build (src/lj_jit.h GCtrace). */
	memcpy(&out->snap, b + lay->tr_snap, 8);
	memcpy(&out->snapmap, b + lay->tr_snapmap, 8);
	memcpy(&out->ir, b + lay->tr_ir, 8);
	memcpy(&out->mcode, b + lay->tr_mcode, 8);
	memcpy(&out->szmcode, b + lay->tr_szmcode, 4);
	memcpy(&out->startins, b + lay->tr_startins, 4);
	if (layout_read_ref(mem, lay, T + lay->tr_startpt, &out->startpt) ||
	    layout_read_ref(mem, lay, T + lay->tr_startpc, &out->startpc))
		return -1;
	if (out->linktype >= JLINK__MAX || out->link >= js->sizetrace || out->root >= js->sizetrace)
		return -1;
	return 0;
}
