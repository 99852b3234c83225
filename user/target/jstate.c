/* Reading jit_State (src/lj_jit.h) out of target memory: one bulk read of
 * the fields the JIT report needs. */
#include "target/jstate.h"

#include <string.h>

#include "target/layout.h"
#include "target/memory.h"

/* Type tags of a TValue (src/lj_obj.h): ~13 number (an int in the low
 * word when tagged so), ~8 function. */
#define ITYPE_NUM	0xfffffff2u
#define ITYPE_FUNC	0xfffffff7u
#define GC64_GCMASK	((1ull << 47) - 1)
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
	/* x86-64 builds are not LJ_DUALNUM: setintV stores a double. */
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
		if (hi == ITYPE_NUM) {
			out->errinfo_kind = JERRINFO_INT;
			out->errinfo_int = (int32_t)(uint32_t)tv;
		} else if ((uint32_t)((int64_t)tv >> 47) == ITYPE_FUNC) {
			out->errinfo_kind = JERRINFO_FUNC;
			out->errinfo_func = tv & GC64_GCMASK;
		}
	} else if (hi == ITYPE_NUM) {
		out->errinfo_kind = JERRINFO_INT;
		out->errinfo_int = (int32_t)(uint32_t)tv;
	} else if (hi == ITYPE_FUNC) {
		out->errinfo_kind = JERRINFO_FUNC;
		out->errinfo_func = (uint32_t)tv;
	}
}

int jstate_read(struct mem_reader *mem, const struct lj_layout *lay, uint64_t g,
		struct jstate *out)
{
	uint8_t pen[JPENALTY_SLOTS * 16];
	uint64_t J, tv = 0;
	int ref = lay->gc64 ? 8 : 4;
	size_t plen;

	memset(out, 0, sizeof(*out));
	if (!jstate_supported(lay) || lay->penalty_size > 16)
		return -1;
	J = g + lay->g_J;
	plen = (size_t)lay->penalty_size * JPENALTY_SLOTS;
	/* Native pointers: J->pc, J->pt and J->trace are 8 bytes on x86-64
	 * whatever the GCRef width; cur.startpt/startpc are GCRef/MRef. */
	if (mem_read(mem, J + lay->J_state, &out->state, 4) ||
	    mem_read(mem, J + lay->J_pc, &out->pc, 8) ||
	    mem_read(mem, J + lay->J_pt, &out->pt, 8) ||
	    layout_read_ref(mem, lay, J + lay->tr_startpt, &out->cur_startpt) ||
	    layout_read_ref(mem, lay, J + lay->tr_startpc, &out->cur_startpc) ||
	    mem_read(mem, J + lay->J_errinfo, &tv, 8) ||
	    mem_read(mem, g + lay->g_trace, &out->traces, 8) ||
	    mem_read(mem, g + lay->g_sizetrace, &out->sizetrace, 4) ||
	    mem_read(mem, J + lay->J_penalty, pen, plen) ||
	    mem_read(mem, J + lay->J_penaltyslot, &out->penaltyslot, 4))
		return -1;
	if (out->sizetrace > MAX_SIZETRACE || out->penaltyslot >= JPENALTY_SLOTS ||
	    out->state > 16)
		return -1;
	decode_errinfo(lay, tv, out);
	for (int i = 0; i < JPENALTY_SLOTS; i++) {
		const uint8_t *p = pen + (size_t)i * lay->penalty_size;

		out->penalty[i].pc = ld(p, ref);
		out->penalty[i].val = (uint16_t)ld(p + lay->penalty_val, 2);
		out->penalty[i].reason = p[lay->penalty_reason];
	}
	return 0;
}
