// SPDX-License-Identifier: MIT
/* layout_identify on synthetic GG_State images: one per layout of the
 * table (the 2025+ vmthref ones and Tarantool's included) is accepted as
 * exactly that layout, LuaJIT 2.0 is recognised and refused by name, and
 * every corrupted variant is refused with a reason. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "luajit/layout.h"
#include "proc/memory.h"
#include "base/unit.h"

#define GG_GC64		0x7f1234560380ull
#define GG_GC32		0x40000380ull
#define IMAGE_SIZE	2048	/* covers lua_State and global_State of every layout */

enum corruption {
	C_NONE, C_L_GCT, C_DUMMY_FFID, C_GLREF, C_STREMPTY_GCT, C_STREMPTY_LEN, C_MAINTHREF,
	C_BC_CFUNC, C_OTHER_FAMILY_BC, C_SHORT_IMAGE, C__MAX
};

static const char *const corruption_name[] = {
	"intact", "lua_State gct", "dummy_ffid", "glref", "strempty gct", "strempty len",
	"mainthref", "bc_cfunc_int", "other family's BC_FUNCC", "image ends inside global_State",
};

static uint8_t image[IMAGE_SIZE];

static void put(uint64_t off, uint64_t v, int width)
{
	for (int i = 0; i < width; i++)
		image[off + (uint64_t)i] = (uint8_t)(v >> (8 * i));
}

/* Builds the GG_State of lay at gg, with one corruption; returns the image
 * length to expose. */
static size_t build(const struct lj_layout *lay, uint64_t gg, enum corruption c)
{
	int ref = lay->gc64 ? 8 : 4;
	uint64_t g = lay->sizeof_L;	/* offsets within the image */
	size_t len = IMAGE_SIZE;

	memset(image, 0, sizeof(image));
	/* lua_State: GCHeader gct = thread, dummy_ffid = FF_C, glref -> g. */
	image[lay->L_gct] = c == C_L_GCT ? 5 : 6;
	image[lay->L_dummy_ffid] = c == C_DUMMY_FFID ? 0 : 1;
	put(lay->L_glref, gg + g + (c == C_GLREF ? 8 : 0), ref);
	/* global_State: the empty string, mainthref, bc_cfunc_int. */
	image[g + lay->g_strempty + lay->gct] = c == C_STREMPTY_GCT ? 11 : 4;
	put(g + lay->g_strempty + lay->str_len, c == C_STREMPTY_LEN ? 3 : 0, 4);
	put(g + lay->g_mainthref, c == C_MAINTHREF ? gg + 64 : gg, ref);
	put(g + lay->g_bc_cfunc_int,
	    c == C_BC_CFUNC ? lay->bc_cfunc_ins + 1 :
	    c == C_OTHER_FAMILY_BC ? (lay->vmthref ? 0x145f : 0x1466) : lay->bc_cfunc_ins, 4);
	/* Something non-zero everywhere else a neighbour layout would look. */
	put(g + lay->g_cur_L, gg + 0x10000, ref);
	if (c == C_SHORT_IMAGE)
		len = g + lay->g_mainthref;	/* strempty readable, the rest not */
	return len;
}

/* Identifies the candidate at gg in the image mapped at base. */
static int identify(uint64_t base, uint64_t gg, size_t len, bool gc64, struct layout_probe *probe)
{
	struct mem_region r = { base, image, len };
	struct mem_reader *m = mem_open_image(&r, 1);
	int rc = layout_identify(m, gg, gc64, probe);

	mem_close(m);
	return rc;
}

static void each_layout(const struct lj_layout *lay)
{
	uint64_t gg = lay->gc64 ? GG_GC64 : GG_GC32;
	struct layout_probe probe;
	char name[256];
	size_t len;
	int rc;

	len = build(lay, gg, C_NONE);
	rc = identify(gg, gg, len, lay->gc64, &probe);
	if (lay->refusal) {
		/* Recognised, then refused by name: never profiled. */
		snprintf(name, sizeof(name), "%s: recognised and refused by name", lay->name);
		CHECK(name, rc == -1 && !probe.layout && probe.refused == lay &&
		      !strcmp(probe.why, lay->refusal));
		return;
	}
	snprintf(name, sizeof(name), "%s: accepted as itself", lay->name);
	CHECK(name, rc == 0 && probe.layout == lay && probe.gg == gg);
	if (rc || probe.layout != lay)
		printf("   got %s, why: %s\n", probe.layout ? probe.layout->name : "none", probe.why);

	snprintf(name, sizeof(name), "%s: signature gives sizeof(lua_State)", lay->name);
	CHECK(name, layout_signature(image, gg, lay->gc64) == lay->sizeof_L);
	snprintf(name, sizeof(name), "%s: other width's signature refused", lay->name);
	CHECK(name, layout_signature(image, gg, !lay->gc64) == 0);
	snprintf(name, sizeof(name), "%s: identify with the other width refused", lay->name);
	CHECK(name, identify(gg, gg, len, !lay->gc64, &probe) == -1 && !probe.layout &&
	      probe.why[0]);
	snprintf(name, sizeof(name), "%s: unreadable candidate refused", lay->name);
	CHECK(name, identify(gg, gg + IMAGE_SIZE, len, lay->gc64, &probe) == -1 &&
	      !strcmp(probe.why, "unreadable"));

	for (int c = C_NONE + 1; c < C__MAX; c++) {
		len = build(lay, gg, (enum corruption)c);
		rc = identify(gg, gg, len, lay->gc64, &probe);
		snprintf(name, sizeof(name), "%s: corrupted %s refused", lay->name,
			 corruption_name[c]);
		CHECK(name, rc == -1 && !probe.layout && probe.why[0]);
		if (rc != -1)
			printf("   accepted as %s\n", probe.layout ? probe.layout->name : "?");
	}
}

/* Whether the BPF view's global_State block covers [at, at + size). */
static bool g_blk_has(const struct lj_offsets *off, unsigned at, unsigned size)
{
	return at >= off->g_blk && at + size <= (unsigned)off->g_blk + off->g_blk_len;
}

/* The BPF view carries the layout's own offsets. */
static void bpf_offsets(const struct lj_layout *lay)
{
	struct lj_offsets off;
	char name[256];

	layout_bpf_offsets(lay, &off);
	snprintf(name, sizeof(name), "%s: BPF offsets copied", lay->name);
	CHECK(name, off.gc64 == lay->gc64 && off.g_vmstate == lay->g_vmstate &&
	      off.g_cur_L == lay->g_cur_L && off.g_jit_base == lay->g_jit_base &&
	      off.L_base == lay->L_base && off.L_stack == lay->L_stack &&
	      off.sizeof_proto == lay->sizeof_proto && off.fn_pc == lay->fn_pc &&
	      off.g_trace == lay->g_trace && off.tr_mcode == lay->tr_mcode &&
	      off.cframe_pc == lay->cframe_pc && off.snap_mcofs == lay->snap_mcofs &&
	      off.snap_nent == lay->snap_nent);
	/* A refused layout is never sampled: it describes no trace or frame. */
	if (lay->refusal)
		return;
	/* GCtrace: the snapshot map and IR the trace frames read, in the
	 * same order as every other GCtrace field (src/lj_jit.h). */
	snprintf(name, sizeof(name), "%s: GCtrace ir and nsnapmap", lay->name);
	CHECK(name, off.tr_ir == lay->tr_ir && off.tr_nsnapmap == lay->tr_nsnapmap &&
	      lay->tr_ir > lay->tr_nsnap && lay->tr_nsnapmap < lay->tr_snap &&
	      lay->tr_snap < lay->tr_snapmap && lay->tr_ir == (lay->gc64 ? 32 : 16));
	/* src/lj_frame.h, x64: CFRAME_OFS_L 2*8 (GC64) or 6*4, CFRAME_OFS_PREV
	 * 4*8, CFRAME_SIZE 10*8; the walker follows coroutines with them. */
	snprintf(name, sizeof(name), "%s: C frame layout for stitching", lay->name);
#if defined(__aarch64__)
	/* arm64 (GC64 only): CFRAME_OFS_PREV 0, PC 8, L 16, CFRAME_SIZE 208. */
	CHECK(name, !lay->gc64 || (off.cframe_L == 16 && off.cframe_prev == 0 &&
				   off.cframe_size == 208 && off.cframe_pc == 8));
#else
	CHECK(name, off.cframe_L == (lay->gc64 ? 16 : 24) && off.cframe_prev == 32 &&
	      off.cframe_size == 80 && off.cframe_L == off.cframe_pc - (lay->gc64 ? 8 : 4));
#endif
	/* The global_State block read per sample holds what every sample
	 * needs, and in every known 2.1 layout the string epoch and
	 * J->trace, J->sizetrace too (each a read saved). */
	snprintf(name, sizeof(name), "%s: global_State block", lay->name);
	CHECK(name, off.g2disp == lay->g2disp && off.g_blk_len <= LBP_G_BLOCK &&
	      g_blk_has(&off, lay->g_vmstate, 4) && g_blk_has(&off, lay->g_cur_L, 8) &&
	      g_blk_has(&off, lay->g_mainthref, 4) && g_blk_has(&off, lay->g_jit_base, 4) &&
	      g_blk_has(&off, lay->g_trace, 8) && g_blk_has(&off, lay->g_sizetrace, 4) &&
	      (!lay->g_strnum || g_blk_has(&off, lay->g_strnum, 8)));
}

int main(void)
{
	int n = layout_count(), vmthref64 = 0, vmthref32 = 0, tarantool = 0, refused = 0;

	CHECK("the table has layouts", n >= 6);
	CHECK("layout_at out of range", !layout_at(-1) && !layout_at(n));
	for (int i = 0; i < n; i++) {
		const struct lj_layout *lay = layout_at(i);

		vmthref64 += lay->vmthref && lay->gc64;
		vmthref32 += lay->vmthref && !lay->gc64;
		tarantool += lay->tarantool;
		refused += lay->refusal != NULL;
		each_layout(lay);
		bpf_offsets(lay);
	}
	CHECK("a GC64 vmthref (2025+) layout is in the table", vmthref64 == 1);
	CHECK("a non-GC64 vmthref (2025+) layout is in the table", vmthref32 == 1);
	CHECK("Tarantool's fork is in the table", tarantool == 1);
	CHECK("LuaJIT 2.0 is recognised to be refused", refused == 1);

	/* GCState.root, the same in every 2.1 family of a width (src/lj_obj.h
	 * GCState); Tarantool's global_State starts with the string table. */
	for (int i = 0; i < n; i++) {
		const struct lj_layout *lay = layout_at(i);
		int want = lay->gc64 ? 40 : lay->tarantool ? 80 : 32;
		char name[256];

		if (lay->refusal)
			continue;
		snprintf(name, sizeof(name), "%s: g->gc.root at %d", lay->name, want);
		CHECK(name, lay->g_gc_root == want);
	}

	/* Known GG_G2DISP per family: offsetof(GG_State, dispatch) -
	 * offsetof(GG_State, g), src/lj_dispatch.h. */
	for (int i = 0; i < n; i++) {
		const struct lj_layout *lay = layout_at(i);
		unsigned want = lay->gc64 ? (lay->vmthref ? 4000 : lay->openresty ? 4008 : 3968)
					  : (lay->vmthref ? 3208 : lay->openresty ? 3216 :
					     lay->tarantool ? 3144 : 3176);
		char name[256];

		if (lay->refusal)
			continue;
		snprintf(name, sizeof(name), "%s: GG_G2DISP %u", lay->name, want);
		CHECK(name, lay->g2disp == want);
	}
	UNIT_EXIT();
}
