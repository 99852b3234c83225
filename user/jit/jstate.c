// SPDX-License-Identifier: MIT
/* Reading jit_State (src/lj_jit.h) out of target memory: one bulk read of
 * the fields the JIT report needs. */
#include "jit/jstate.h"

#include <string.h>

#include "luajit/layout.h"
#include "proc/memory.h"
#include "lj_consts.h"

/* Type tags of a TValue (src/lj_obj.h): ~13 number (an int in the low
 * word when tagged so), ~8 function. */
#define MAX_SIZETRACE	65536	/* TraceNo is 16 bits */

bool jstate_supported(const struct lj_layout *lay)
{
	return lay && lay->g_J && !lay->refusal;
}

static uint64_t ld(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

/* Decodes J->errinfo (src/lj_obj.h TValue).  GC64: the tag is the top 17
 * bits (a tagged int: itype in the high word); otherwise {value, itype}. */
static void decode_errinfo(const struct lj_layout *lay, uint64_t tv, struct jstate *out)
{
	uint32_t hi = (uint32_t)(tv >> 32);

	out->errinfo_kind = JERRINFO_NONE;
	/* Not LJ_DUALNUM (x86-64): setintV stores a double. */
	if (hi <= 0xfff80000u) {
		double d;

		memcpy(&d, &tv, sizeof(d));
		if (d >= -2147483648.0 && d <= 2147483647.0 && d == (double)(int32_t)d) {
			out->errinfo_kind = JERRINFO_INT;
			out->errinfo_int = (int32_t)d;
		}
		return;
	}
	if (lay->gc64) {
		/* A dual-number build's integer (arm64): itype LJ_TISNUM in
		 * the top 17 bits, the value in the low 32. */
		if ((uint32_t)((int64_t)tv >> 47) == LJ_TNUMX) {
			out->errinfo_kind = JERRINFO_INT;
			out->errinfo_int = (int32_t)(uint32_t)tv;
		} else if ((uint32_t)((int64_t)tv >> 47) == LJ_TFUNC) {
			out->errinfo_kind = JERRINFO_FUNC;
			out->errinfo_func = tv & LJ_GCVMASK;
		}
	} else if (hi == LJ_TNUMX) {
		out->errinfo_kind = JERRINFO_INT;
		out->errinfo_int = (int32_t)(uint32_t)tv;
	} else if (hi == LJ_TFUNC) {
		out->errinfo_kind = JERRINFO_FUNC;
		out->errinfo_func = (uint32_t)tv;
	}
}

/* Every field read lies in jit_State (J->trace too: g_trace is inside
 * it), so one read of its first few KB serves them all. */
#define J_READ_MAX	4096

int jstate_read(struct mem_reader *mem, const struct lj_layout *lay, uint64_t g,
		struct jstate *out)
{
	uint8_t b[J_READ_MAX];
	uint64_t J, tv;
	int ref = lay->gc64 ? 8 : 4;
	size_t plen, len;
	unsigned trace_at, size_at;

	memset(out, 0, sizeof(*out));
	if (!jstate_supported(lay) || lay->penalty_size > 16 || lay->g_trace < lay->g_J)
		return -1;
	J = g + lay->g_J;
	plen = (size_t)lay->penalty_size * JPENALTY_SLOTS;
	trace_at = lay->g_trace - lay->g_J;
	size_at = lay->g_sizetrace - lay->g_J;
	len = lay->J_errinfo + 8u;
	if (lay->J_penalty + plen > len || lay->J_penaltyslot + 4u > len || len > J_READ_MAX ||
	    mem_read(mem, J, b, len))
		return -1;
	/* Native pointers: J->pc, J->pt and J->trace are 8 bytes on x86-64
	 * whatever the GCRef width; cur.startpt/startpc are GCRef/MRef. */
	out->state = (uint32_t)ld(b + lay->J_state, 4);
	out->pc = ld(b + lay->J_pc, 8);
	out->pt = ld(b + lay->J_pt, 8);
	out->cur_startpt = ld(b + lay->tr_startpt, ref);
	out->cur_startpc = ld(b + lay->tr_startpc, ref);
	tv = ld(b + lay->J_errinfo, 8);
	out->traces = ld(b + trace_at, 8);
	out->sizetrace = (uint32_t)ld(b + size_at, 4);
	out->penaltyslot = (uint32_t)ld(b + lay->J_penaltyslot, 4);
	if (out->sizetrace > MAX_SIZETRACE || out->penaltyslot >= JPENALTY_SLOTS ||
	    out->state > 16)
		return -1;
	decode_errinfo(lay, tv, out);
	if (lay->J_hotexit && lay->J_tryside + 4u <= len) {
		out->hotexit = (int32_t)ld(b + lay->J_hotexit, 4);
		out->tryside = (int32_t)ld(b + lay->J_tryside, 4);
		/* jit.opt bounds them to 0..0x7fffffff; the counter is 8 bits. */
		if (out->hotexit < 0 || out->tryside < 0)
			out->hotexit = out->tryside = 0;
	}
	for (int i = 0; i < JPENALTY_SLOTS; i++) {
		const uint8_t *p = b + lay->J_penalty + (size_t)i * lay->penalty_size;

		out->penalty[i].pc = ld(p, ref);
		out->penalty[i].val = (uint16_t)ld(p + lay->penalty_val, 2);
		out->penalty[i].reason = p[lay->penalty_reason];
	}
	return 0;
}
