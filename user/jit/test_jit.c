// SPDX-License-Identifier: MIT
/* The JIT-state readers (jstate, jtrace, jblack, traceerr) on synthetic
 * images laid out by each row of the layout table: a global_State with
 * its jit_State behind, a penalty cache, J->errinfo, a trace array with
 * one trace, and a prototype whose FORL was blacklisted.  Corrupted
 * copies are refused, never misread. */
#include <stdio.h>
#include <string.h>

#include "jit/jblack.h"
#include "jit/jstate.h"
#include "jit/jtrace.h"
#include "luajit/layout.h"
#include "proc/memory.h"
#include "jit/traceerr.h"
#include "base/unit.h"

/* GC objects of non-GC64 VMs live below 4 GiB (32-bit GCRefs). */
#define BASE		(lay->gc64 ? 0x7f0000100000ull : 0x40000000ull)
#define IMAGE_SIZE	16384
#define G_OFF		0x100	/* global_State */
#define TRACES_OFF	0x1800	/* GCRef trace[8] */
#define T_OFF		0x1900	/* GCtrace #3 */
#define PT_OFF		0x2000	/* GCproto, bytecode right behind */
#define NBC		6

static uint8_t image[IMAGE_SIZE];

static void put(uint64_t off, uint64_t v, int width)
{
	for (int i = 0; i < width; i++)
		image[off + (uint64_t)i] = (uint8_t)(v >> (8 * i));
}

/* Bytecode: FUNCF, KSHORT, FORI, body, IFORL (blacklisted), RET0. */
static uint64_t build(const struct lj_layout *lay)
{
	int ref = lay->gc64 ? 8 : 4;
	uint64_t J = G_OFF + lay->g_J, bc = PT_OFF + lay->sizeof_proto;
	uint32_t ops[NBC] = { (uint32_t)lay->bc_ifuncf - 1, 41, 77, 32, JBC_IFORL, 75 };
	uint64_t tv;

	memset(image, 0, sizeof(image));
	put(G_OFF + lay->g_trace, BASE + TRACES_OFF, 8);
	put(G_OFF + lay->g_sizetrace, 8, 4);
	put(J + lay->J_state, 0, 4);
	put(J + lay->J_pt, BASE + PT_OFF, 8);
	put(J + lay->J_pc, BASE + bc + 3 * 4, 8);
	put(J + lay->tr_startpt, BASE + PT_OFF, ref);
	put(J + lay->tr_startpc, BASE + bc + 4 * 4, ref);
	/* errinfo: the number 51 as x86-64 stores it (a double). */
	{ double d = 51; memcpy(&tv, &d, 8); }
	put(J + lay->J_errinfo, tv, 8);
	put(J + lay->J_penaltyslot, 1, 4);
	put(J + lay->J_penalty, BASE + bc + 4 * 4, ref);
	put(J + lay->J_penalty + lay->penalty_val, 40000, 2);
	image[J + lay->J_penalty + lay->penalty_reason] = 7;
	/* Trace 3 starts at the loop and links to itself. */
	put(TRACES_OFF + 3 * (uint64_t)ref, BASE + T_OFF, ref);
	put(T_OFF + lay->tr_traceno, 3, 2);
	put(T_OFF + lay->tr_link, 3, 2);
	image[T_OFF + lay->tr_linktype] = JLINK_LOOP;
	put(T_OFF + lay->tr_startpt, BASE + PT_OFF, ref);
	put(T_OFF + lay->tr_startpc, BASE + bc + 4 * 4, ref);
	/* The prototype. */
	image[PT_OFF + lay->gct] = 7;
	put(PT_OFF + lay->pt_sizebc, NBC, 4);
	for (int i = 0; i < NBC; i++)
		put(bc + 4 * (uint64_t)i, ops[i], 4);
	return bc;
}

static void each_layout(const struct lj_layout *lay)
{
	struct mem_region r = { BASE, image, sizeof(image) };
	struct mem_reader *m;
	struct jstate js;
	struct jtrace tr;
	struct jblack_ins bl[4];
	uint64_t bc = build(lay), g = BASE + G_OFF;
	char name[300], text[128];
	int n;

	m = mem_open_image(&r, 1);
	snprintf(name, sizeof(name), "%s: jit_State read", lay->name);
	CHECK(name, jstate_read(m, lay, g, &js) == 0);
	snprintf(name, sizeof(name), "%s: penalty slot 0", lay->name);
	CHECK(name, js.penalty[0].pc == BASE + bc + 16 && js.penalty[0].val == 40000 &&
		    js.penalty[0].reason == 7 && js.penalty[1].pc == 0 && js.penaltyslot == 1);
	snprintf(name, sizeof(name), "%s: errinfo 51, last PC", lay->name);
	CHECK(name, js.errinfo_kind == JERRINFO_INT && js.errinfo_int == 51 &&
		    js.pc == BASE + bc + 12 && js.cur_startpc == BASE + bc + 16);
	snprintf(name, sizeof(name), "%s: trace 3 read", lay->name);
	CHECK(name, jtrace_read(m, lay, &js, 3, &tr) == 0 && tr.link == 3 &&
		    tr.linktype == JLINK_LOOP && tr.startpt == BASE + PT_OFF &&
		    !strcmp(jtrace_link_name(tr.linktype), "loop"));
	snprintf(name, sizeof(name), "%s: empty trace slot", lay->name);
	CHECK(name, jtrace_read(m, lay, &js, 2, &tr) == 1);
	snprintf(name, sizeof(name), "%s: trace beyond sizetrace", lay->name);
	CHECK(name, jtrace_read(m, lay, &js, 9, &tr) == -1);
	snprintf(name, sizeof(name), "%s: prototype found from the loop PC", lay->name);
	CHECK(name, jblack_proto_of(m, lay, BASE + bc + 16, 1000) == BASE + PT_OFF);
	n = jblack_scan(m, lay, BASE + PT_OFF, bl, 4);
	snprintf(name, sizeof(name), "%s: the blacklisted FORL", lay->name);
	CHECK(name, n == 1 && bl[0].pos == 4 && !strcmp(jblack_name(lay, bl[0].op), "FORL"));
	traceerr_text(lay, js.penalty[0].reason, js.errinfo_int, NULL, text, sizeof(text));
	snprintf(name, sizeof(name), "%s: message", lay->name);
	if (lay->vmthref) {
		char bcn[16];

		traceerr_text(lay, 7, -1, traceerr_bcname(lay, 51, bcn, sizeof(bcn)), text,
			      sizeof(text));
		CHECK_STR(name, text, "NYI: bytecode FNEW  ");
	} else {
		CHECK_STR(name, text, "NYI: bytecode 51");
	}

	/* Corruptions: each refused. */
	put(G_OFF + lay->g_sizetrace, 1u << 20, 4);
	snprintf(name, sizeof(name), "%s: absurd sizetrace refused", lay->name);
	CHECK(name, jstate_read(m, lay, g, &js) == -1);
	build(lay);
	put(G_OFF + lay->g_J + lay->J_penaltyslot, 64, 4);
	snprintf(name, sizeof(name), "%s: penaltyslot out of range refused", lay->name);
	CHECK(name, jstate_read(m, lay, g, &js) == -1);
	build(lay);
	put(T_OFF + lay->tr_traceno, 4, 2);
	jstate_read(m, lay, g, &js);
	snprintf(name, sizeof(name), "%s: trace with another number refused", lay->name);
	CHECK(name, jtrace_read(m, lay, &js, 3, &tr) == -1);
	build(lay);
	image[PT_OFF + lay->gct] = 6;
	snprintf(name, sizeof(name), "%s: no prototype header, no prototype", lay->name);
	CHECK(name, jblack_proto_of(m, lay, BASE + bc + 16, 1000) == 0 &&
		    jblack_scan(m, lay, BASE + PT_OFF, bl, 4) == -1);
	mem_close(m);
}

int main(void)
{
	char buf[64];

	for (int i = 0; i < layout_count(); i++) {
		const struct lj_layout *lay = layout_at(i);
		char name[256];

		if (!jstate_supported(lay))
			continue;
		/* J->trace sits 384 (GC64) or 360 bytes into jit_State (368 in
		 * Tarantool's fork). */
		snprintf(name, sizeof(name), "%s: g_J agrees with g_trace", lay->name);
		CHECK(name, lay->g_trace == lay->g_J + (lay->gc64 ? 384 : lay->tarantool ? 368 : 360));
		each_layout(lay);
	}
	CHECK("Tarantool's row has its JIT state",
	      jstate_supported(layout_at(6)) && layout_at(6)->tarantool);
	CHECK("LuaJIT 2.0's row has none", !jstate_supported(layout_at(7)) && layout_at(7)->refusal);
	CHECK_STR("unknown code", traceerr_text(NULL, 200, 0, NULL, buf, sizeof(buf)),
		  "trace error 200");
	CHECK_STR("FastFunc variant",
		  traceerr_text(NULL, 15, -1, "tostring", buf, sizeof(buf)),
		  "NYI: unsupported variant of FastFunc tostring");
	CHECK_STR("argument not seen", traceerr_text(NULL, 7, -1, NULL, buf, sizeof(buf)),
		  "NYI: bytecode ?");
	CHECK_STR("last message", traceerr_text(NULL, 34, 0, NULL, buf, sizeof(buf)),
		  "NYI: register coalescing too complex");
	UNIT_EXIT();
}
