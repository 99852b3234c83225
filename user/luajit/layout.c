// SPDX-License-Identifier: MIT
/* Per-variant LuaJIT layouts (offsets measured with offsetof() against each
 * source tree's src/lj_obj.h, lj_jit.h and lj_dispatch.h) and their
 * validation (docs/luajit-internals.md, "Finding the VM").
 */
#include "luajit/layout.h"

#include "luajit/arch.h"

#include <stdio.h>
#include <string.h>

#include "luajit/luaobj.h"
#include "proc/memory.h"

/* struct SnapShot (src/lj_jit.h): since 2020 it carries mcofs, the
 * machine-code offset that maps a trace address to its snapshot. */
#define SNAPSHOT_2020	.snap_mcofs = 6, .snap_nent = 10

/* -- Heap census fields ------------------------------------------------------
 * For the heap walker (user/heap/heap_*.c), from src/lj_obj.h, lj_jit.h
 * and lj_ctype.h of 2.1 (2022 to 2026) and OpenResty's luajit2, checked
 * with gdb `ptype /o` on -g builds.  The string table (StrInternState)
 * has the same place in every 2.1 with string ids; ctype_state follows
 * jit_base, so it is given per row (HEAP_CTS). */
#define HEAP_GC64                                                            \
	.g_gc_total = 16, .g_gc_state = 33, .g_gc_mmudata = 80,              \
	.g_strtab = 152, .g_strmask = 160, .g_tmpbuf = 200, .sbuf_e = 8, .sbuf_b = 16,                                \
	.L_top = 40, .L_openupval = 64, .L_env = 72, .L_status = 11,         \
	.sizeof_tab = 64, .tab_colo = 11, .tab_meta = 32,                    \
	.sizeof_udata = 48, .ud_len = 24, .ud_env = 16,                      \
	.sizeof_upval = 48, .uv_closed = 10, .uv_tv = 16, .uv_v = 32,        \
	.fn_nupvalues = 11, .fn_env = 16, .fn_uvptr = 40, .fn_upvalue = 48,  \
	.sizeof_fnl0 = 40, .sizeof_fnc0 = 48,              \
	.sizeof_cdata = 16, .sizeof_ctype = 24, .ctype_size = 4,             \
	.sizeof_trace = HEAP_TRACE64, .tr_nins = 12, .tr_nk = 40, .sizeof_snap = 12

#define HEAP_GC32                                                            \
	.g_gc_total = 16, .g_gc_state = 25, .g_gc_mmudata = 52,              \
	.g_strtab = 104, .g_strmask = 112, .g_tmpbuf = 144, .sbuf_e = 8, .sbuf_b = 16,                                \
	.L_top = 24, .L_openupval = 40, .L_env = 44, .L_status = 7,          \
	.sizeof_tab = 32, .tab_colo = 7, .tab_meta = 16,                     \
	.sizeof_udata = 24, .ud_len = 12, .ud_env = 8,                       \
	.sizeof_upval = 24, .uv_closed = 6, .uv_tv = 8, .uv_v = 16,          \
	.fn_nupvalues = 7, .fn_env = 8, .fn_uvptr = 20, .fn_upvalue = 32,    \
	.sizeof_fnl0 = 20, .sizeof_fnc0 = 32,              \
	.sizeof_cdata = 8, .sizeof_ctype = 16, .ctype_size = 4,              \
	.sizeof_trace = HEAP_TRACE32, .tr_nins = 8, .tr_nk = 24, .sizeof_snap = 12

#define HEAP_TRACE64	120
#define HEAP_TRACE32	96
#define HEAP_CTS(cur_L, width)	.g_ctype_state = (cur_L) + 2 * (width)
/* -- End of heap census fields ---------------------------------------------- */

/* ---- JIT health (--jit) ----------------------------------------------
 * jit_State and GCtrace fields (src/lj_jit.h), measured with offsetof()
 * against LuaJIT 2.1 head and OpenResty's luajit2 (2024), both widths.
 * J->errinfo moved in 2023 (mcmin/mcmax added before it): JIT_ERRINFO_OLD
 * is OpenResty's and Debian's 2022 snapshot, JIT_ERRINFO_NEW upstream's. */
/* J->param[JIT_P_hotexit] (tryside follows it), SnapShot.count at 11
 * behind nent, SNAPCOUNT_DONE 255: the same in Debian's 2.1 and
 * OpenResty's builds, checked by reading back -Ohotexit=7 -Otryside=3
 * from running targets of both widths. */
#define JIT_SIDE_EXITS(hotexit)                                              \
	.J_hotexit = (hotexit), .J_tryside = (hotexit) + 4, .snap_count = 11, \
	.snapcount_done = 255
/* GC64 rows take the architecture's shift of everything after jit_State's
 * backend constants (ARCH_JSHIFT_*, luajit/arch.h): J, the fields listed
 * here from penalty on, J->trace and the dispatch table. */
#define JIT_GC64(shift)                                                      \
	.J_pc = 136, .J_pt = 152, .J_state = 236, .J_penalty = 1824 + (shift), \
	.J_penaltyslot = 2848 + (shift), .penalty_size = 16, .penalty_val = 8, \
	.penalty_reason = 10, .tr_startins = 80,                             \
	.tr_nchild = 100, .tr_traceno = 104, .tr_link = 106, .tr_root = 108, \
	.tr_nextroot = 110, .tr_nextside = 112, .tr_linktype = 116,         \
	JIT_SIDE_EXITS(1660 + (shift))
#define JIT_GC32                                                             \
	.J_pc = 112, .J_pt = 128, .J_state = 212, .J_penalty = 1792,         \
	.J_penaltyslot = 2304, .penalty_size = 8, .penalty_val = 4,          \
	.penalty_reason = 6, .tr_startins = 56,                              \
	.tr_nchild = 76, .tr_traceno = 80, .tr_link = 82, .tr_root = 84,     \
	.tr_nextroot = 86, .tr_nextside = 88, .tr_linktype = 92,           \
	JIT_SIDE_EXITS(1628)
#define JIT_ERRINFO_OLD_GC64	.J_errinfo = 3088 + ARCH_JSHIFT_2022
#define JIT_ERRINFO_NEW_GC64	.J_errinfo = 3104 + ARCH_JSHIFT_2025
#define JIT_ERRINFO_OLD_GC32	.J_errinfo = 2536
#define JIT_ERRINFO_NEW_GC32	.J_errinfo = 2552
/* ---- end of JIT health ---------------------------------------------- */

/* -- Allocation sampling fields ----------------------------------------------
 * For -e alloc (user/luajit/allocfn.c): global_State starts with allocf
 * and allocd in every 2.1 since the string interning rewrite (src/lj_obj.h;
 * Tarantool's fork still leads with the string table: not given). */
#define ALLOC_FIELDS	.has_allocf = true, .g_allocf = 0
/* -- End of allocation sampling fields --------------------------------------- */

/* Fields that do not differ between families of one pointer width. */
#define GC64_COMMON                                                          \
	.gc64 = true, .L_gct = 9, .L_dummy_ffid = 10, .L_glref = 16,         \
	.L_base = 32, .L_stack = 56, .L_cframe = 80, .L_stacksize = 88,      \
	.g_gc_root = 40, .g_strempty = 120, .g_vmstate = 184,                \
	.g_strnum = 164, .g_mainthref = 192,                                 \
	.g_registrytv = 272, .gct = 9,                                       \
	.fn_ffid = 10, .fn_pc = 32, .fn_cfunc = 40,                          \
	.sizeof_proto = 104, .pt_sizebc = 12, .pt_k = 32, .pt_sizekgc = 48,  \
	.pt_sizept = 56, .pt_sizeuv = 60, .pt_chunkname = 64,               \
	.pt_firstline = 72,                                                  \
	.pt_numline = 76, .pt_lineinfo = 80, .pt_uvinfo = 88,                \
	.pt_varinfo = 96, .str_sid = 12, .str_len = 20, .str_data = 24,      \
	.tab_array = 16, .tab_node = 40, .tab_asize = 48, .tab_hmask = 52,   \
	.node_size = 24, .node_key = 8,                                      \
	.tr_nsnap = 10, .tr_snap = 48, .tr_snapmap = 56, .tr_startpt = 64,   \
	.tr_startpc = 72, .tr_szmcode = 84, .tr_mcode = 88, .tr_ir = 32,    \
	.tr_nsnapmap = 44, ARCH_CFRAME_GC64, SNAPSHOT_2020,                  \
	HEAP_GC64, ALLOC_FIELDS

#define GC32_COMMON                                                          \
	.gc64 = false, .L_gct = 5, .L_dummy_ffid = 6, .L_glref = 8,          \
	.L_base = 16, .L_stack = 36, .L_cframe = 48, .L_stacksize = 56,      \
	.g_gc_root = 32, .g_strempty = 76, .g_vmstate = 136,                 \
	.g_strnum = 116, .g_mainthref = 140,                                 \
	.g_registrytv = 216, .gct = 5,                                       \
	.fn_ffid = 6, .fn_pc = 16, .fn_cfunc = 24,                           \
	.sizeof_proto = 64, .pt_sizebc = 8, .pt_k = 16, .pt_sizekgc = 24,    \
	.pt_sizept = 32, .pt_sizeuv = 36, .pt_chunkname = 40,               \
	.pt_firstline = 44,                                                  \
	.pt_numline = 48, .pt_lineinfo = 52, .pt_uvinfo = 56,                \
	.pt_varinfo = 60, .str_sid = 8, .str_len = 16, .str_data = 20,       \
	.tab_array = 8, .tab_node = 20, .tab_asize = 24, .tab_hmask = 28,    \
	.node_size = 24, .node_key = 8,                                      \
	.tr_nsnap = 6, .tr_snap = 32, .tr_snapmap = 40, .tr_startpt = 48,    \
	.tr_startpc = 52, .tr_szmcode = 60, .tr_mcode = 64, .tr_ir = 16,    \
	.tr_nsnapmap = 28, ARCH_CFRAME_GC32, SNAPSHOT_2020,                  \
	HEAP_GC32, ALLOC_FIELDS

#define BC_CFUNC_97	0x145f	/* BC_FUNCC 95, LUA_MINSTACK 20 */
#define BC_CFUNC_104	0x1466	/* BC_FUNCC 102 (vmthref builds) */
#define BC_CFUNC_93	0x145b	/* BC_FUNCC 91 (LuaJIT 2.0) */

static const struct lj_layout layouts[] = {
	{
		.name = "upstream 2.1 GC64", GC64_COMMON, .sizeof_L = 96,
		HEAP_CTS(368, 8),
		.g_bc_cfunc_int = 360, .g_cur_L = 368, .g_jit_base = 376,
		.g_trace = 1112 + ARCH_JSHIFT_2022, .g_sizetrace = 1124 + ARCH_JSHIFT_2022,
		.g2disp = 3968 + ARCH_JSHIFT_2022,
		.len_ddisp = 154, .bc_cfunc_ins = BC_CFUNC_97, .bc_max = 97,
		/* JIT health */ JIT_GC64(ARCH_JSHIFT_2022), JIT_ERRINFO_OLD_GC64, .g_J = 728, .bc_ifuncf = 90,
	},
	{
		.name = "OpenResty 2.1 GC64", GC64_COMMON, .openresty = true,
		.sizeof_L = 112, .L_exdata = 96,
		HEAP_CTS(368, 8),
		.g_bc_cfunc_int = 360, .g_cur_L = 368, .g_jit_base = 376,
		.g_trace = 1120 + ARCH_JSHIFT_2022, .g_sizetrace = 1132 + ARCH_JSHIFT_2022,
		.g2disp = 4008 + ARCH_JSHIFT_2022,
		.len_ddisp = 154, .bc_cfunc_ins = BC_CFUNC_97, .bc_max = 97,
		/* JIT health */ JIT_GC64(ARCH_JSHIFT_2022), JIT_ERRINFO_OLD_GC64, .g_J = 736, .bc_ifuncf = 90,
	},
	{
		.name = "upstream 2.1 GC64 (2025+, vmthref)", GC64_COMMON,
		.vmthref = true, .sizeof_L = 96,
		HEAP_CTS(376, 8),
		.g_bc_cfunc_int = 368, .g_cur_L = 376, .g_jit_base = 384,
		.g_trace = 1128 + ARCH_JSHIFT_2025, .g_sizetrace = 1140 + ARCH_JSHIFT_2025,
		.g2disp = 4000 + ARCH_JSHIFT_2025,
		.len_ddisp = 161, .bc_cfunc_ins = BC_CFUNC_104, .bc_max = 104,
		/* JIT health */ JIT_GC64(ARCH_JSHIFT_2025), JIT_ERRINFO_NEW_GC64, .g_J = 744, .bc_ifuncf = 97,
	},
	{
		.name = "upstream 2.1 non-GC64", GC32_COMMON, .sizeof_L = 64,
		HEAP_CTS(288, 4),
		.g_bc_cfunc_int = 280, .g_cur_L = 288, .g_jit_base = 292,
		.g_trace = 848, .g_sizetrace = 860, .g2disp = 3176,
		.len_ddisp = 154, .bc_cfunc_ins = BC_CFUNC_97, .bc_max = 97,
		/* JIT health */ JIT_GC32, JIT_ERRINFO_OLD_GC32, .g_J = 488, .bc_ifuncf = 90,
	},
	{
		.name = "OpenResty 2.1 non-GC64", GC32_COMMON, .openresty = true,
		.sizeof_L = 80, .L_exdata = 64,
		HEAP_CTS(288, 4),
		.g_bc_cfunc_int = 280, .g_cur_L = 288, .g_jit_base = 292,
		.g_trace = 856, .g_sizetrace = 868, .g2disp = 3216,
		.len_ddisp = 154, .bc_cfunc_ins = BC_CFUNC_97, .bc_max = 97,
		/* JIT health */ JIT_GC32, JIT_ERRINFO_OLD_GC32, .g_J = 496, .bc_ifuncf = 90,
	},
	{
		.name = "upstream 2.1 non-GC64 (2025+, vmthref)", GC32_COMMON,
		.vmthref = true, .sizeof_L = 64,
		HEAP_CTS(296, 4),
		.g_bc_cfunc_int = 288, .g_cur_L = 296, .g_jit_base = 300,
		.g_trace = 864, .g_sizetrace = 876, .g2disp = 3208,
		.len_ddisp = 161, .bc_cfunc_ins = BC_CFUNC_104, .bc_max = 104,
		/* JIT health */ JIT_GC32, JIT_ERRINFO_NEW_GC32, .g_J = 504, .bc_ifuncf = 97,
	},
	/* Tarantool 2.6 (Debian's tarantool) links its fork of 2.1.0-beta3
	 * statically, non-GC64: the string table and Bloom filter still
	 * lead global_State, strings have no sid (the hash stands in for
	 * the fingerprint) and snapshots no mcofs (a trace's top frame gets
	 * no line from its snapshot).  Offsets from the DWARF of the package's
	 * /usr/bin/tarantool (gdb: ptype /o struct global_State). */
	{
		.name = "Tarantool 2.6 (2.1.0-beta3 fork) non-GC64",
		.gc64 = false, .tarantool = true, .sizeof_L = 64,
		.L_gct = 5, .L_dummy_ffid = 6, .L_glref = 8, .L_base = 16,
		.L_stack = 36, .L_cframe = 48, .L_stacksize = 56,
		.g_gc_root = 80, .g_strempty = 140, .g_vmstate = 120,
		.g_mainthref = 160, .g_registrytv = 168, .gct = 5,
		.g_bc_cfunc_int = 272, .g_cur_L = 280, .g_jit_base = 284,
		.g_trace = 816, .g_sizetrace = 828, .g2disp = 3144,
		.len_ddisp = 154, .bc_cfunc_ins = BC_CFUNC_97, .bc_max = 97,
		.fn_ffid = 6, .fn_pc = 16, .fn_cfunc = 24,
		.sizeof_proto = 64, .pt_sizebc = 8, .pt_k = 16, .pt_sizekgc = 24,
		.pt_sizept = 32, .pt_sizeuv = 36, .pt_chunkname = 40, .pt_firstline = 44,
		.pt_numline = 48, .pt_lineinfo = 52, .pt_uvinfo = 56,
		.pt_varinfo = 60, .str_sid = 8, .str_len = 12, .str_data = 16,
		.tab_array = 8, .tab_node = 20, .tab_asize = 24, .tab_hmask = 28,
		.node_size = 24, .node_key = 8,
		.tr_nsnap = 6, .tr_snap = 32, .tr_snapmap = 40, .tr_startpt = 48,
		.tr_startpc = 52, .tr_szmcode = 60, .tr_mcode = 64, .tr_ir = 16,
		.tr_nsnapmap = 28, .cframe_pc = 28, .cframe_L = 24, .cframe_prev = 32,
		.cframe_size = 80, .snap_mcofs = 0, .snap_nent = 8,
		/* JIT health: the same DWARF (ptype /o struct jit_State, GCtrace,
		 * HotPenalty); the penalty cache sits 8 bytes further than in
		 * 2.1 non-GC64, and its traceerr table is 2.1's. */
		.g_J = 448, .J_pc = 112, .J_pt = 128, .J_state = 212, .J_penalty = 1800,
		.J_penaltyslot = 2312, .J_errinfo = 2544, .penalty_size = 8,
		.penalty_val = 4, .penalty_reason = 6, .tr_nins = 8, .tr_startins = 56,
		.tr_nchild = 76, .tr_traceno = 80, .tr_link = 82, .tr_root = 84,
		.tr_nextroot = 86, .tr_nextside = 88, .tr_linktype = 92, .bc_ifuncf = 90,
		/* Side exits: param[] at 1608; SnapShot keeps a 32-bit mapofs
		 * and no mcofs, so count sits right behind nent (12 bytes). */
		.J_hotexit = 1636, .J_tryside = 1640, .sizeof_snap = 12, .snap_count = 9,
		.snapcount_done = 255,
	},
	/* LuaJIT 2.0 is recognised only to be refused by name: its
	 * global_State has no cur_L (only jit_L, set while a trace runs), so
	 * the coroutine running in the interpreter cannot be found from
	 * outside.  Offsets from a v2.0 build (src/lj_obj.h). */
	{
		.name = "LuaJIT 2.0 non-GC64",
		.refusal = "LuaJIT 2.0 is not supported: its global_State has no cur_L, so the "
			   "running coroutine cannot be found from outside",
		.gc64 = false, .sizeof_L = 64,
		.L_gct = 5, .L_dummy_ffid = 6, .L_glref = 8,
		.g_strempty = 128, .g_mainthref = 148, .g_bc_cfunc_int = 236,
		.gct = 5, .str_len = 12, .bc_cfunc_ins = BC_CFUNC_93,
	},
};

#define NLAYOUTS ((int)(sizeof(layouts) / sizeof(layouts[0])))

#define FF_C		1

int layout_count(void)
{
	return NLAYOUTS;
}

const struct lj_layout *layout_at(int i)
{
	return i >= 0 && i < NLAYOUTS ? &layouts[i] : NULL;
}

static uint64_t load_le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

bool layout_signature_hint(const uint8_t *b)
{
	const struct lj_layout *w64 = &layouts[0], *w32 = &layouts[3];

	return (b[w64->L_gct] == LJ_GCT(LJ_TTHREAD) && b[w64->L_dummy_ffid] == FF_C) ||
	       (b[w32->L_gct] == LJ_GCT(LJ_TTHREAD) && b[w32->L_dummy_ffid] == FF_C);
}

unsigned layout_signature(const uint8_t *b, uint64_t addr, bool gc64)
{
	/* The GCHeader and glref offsets are the same for every layout of
	 * one width; only sizeof(lua_State) differs. */
	const struct lj_layout *any = gc64 ? &layouts[0] : &layouts[3];
	uint64_t glref;

	if (b[any->L_gct] != LJ_GCT(LJ_TTHREAD) || b[any->L_dummy_ffid] != FF_C)
		return 0;
	glref = load_le(b + any->L_glref, gc64 ? 8 : 4);
	if (glref <= addr || glref - addr > 255)
		return 0;
	for (int i = 0; i < NLAYOUTS; i++)
		if (layouts[i].gc64 == gc64 && glref - addr == layouts[i].sizeof_L)
			return layouts[i].sizeof_L;
	return 0;
}

int layout_read_ref(struct mem_reader *mem, const struct lj_layout *lay, uint64_t addr,
		    uint64_t *out)
{
	uint64_t v = 0;

	if (mem_read(mem, addr, &v, lay->gc64 ? 8 : 4))
		return -1;
	*out = v;
	return 0;
}

/* Checks one layout against the global_State at g; returns NULL or why not. */
static const char *layout_check(struct mem_reader *mem, const struct lj_layout *lay,
				uint64_t gg, uint64_t g)
{
	uint8_t str[32];
	uint64_t mainth = 0;
	uint32_t bc = 0;

	if (mem_read(mem, g + lay->g_strempty, str, sizeof(str)))
		return "global_State unreadable";
	if (str[lay->gct] != LJ_GCT(LJ_TSTR) || load_le(str + lay->str_len, 4) != 0)
		return "strempty is not an empty string";
	if (layout_read_ref(mem, lay, g + lay->g_mainthref, &mainth) || mainth != gg)
		return "mainthref does not point back to the main thread";
	if (mem_read(mem, g + lay->g_bc_cfunc_int, &bc, 4) || bc != lay->bc_cfunc_ins)
		return "bc_cfunc_int does not hold BC_FUNCC";
	return NULL;
}

int layout_identify(struct mem_reader *mem, uint64_t gg, bool gc64, struct layout_probe *probe)
{
	uint8_t head[128];
	unsigned size;
	const char *why = "no layout of this lua_State size";

	memset(probe, 0, sizeof(*probe));
	probe->gg = gg;
	if (mem_read(mem, gg, head, sizeof(head))) {
		snprintf(probe->why, sizeof(probe->why), "unreadable");
		return -1;
	}
	size = layout_signature(head, gg, gc64);
	if (!size) {
		snprintf(probe->why, sizeof(probe->why), "no lua_State signature");
		return -1;
	}
	for (int i = 0; i < NLAYOUTS; i++) {
		const struct lj_layout *lay = &layouts[i];

		if (lay->gc64 != gc64 || lay->sizeof_L != size)
			continue;
		why = layout_check(mem, lay, gg, gg + size);
		if (!why && lay->refusal) {
			snprintf(probe->why, sizeof(probe->why), "%s", lay->refusal);
			probe->refused = lay;
			return -1;
		}
		if (!why) {
			probe->layout = lay;
			return 0;
		}
	}
	snprintf(probe->why, sizeof(probe->why), "lua_State size %u: %s", size, why);
	return -1;
}

/* Widens [*lo, *hi) to cover field [at, at + size) when the span stays
 * within LBP_G_BLOCK bytes. */
static bool g_span_add(uint32_t *lo, uint32_t *hi, uint32_t at, uint32_t size)
{
	uint32_t nlo = at < *lo ? at : *lo;
	uint32_t nhi = at + size > *hi ? at + size : *hi;

	if (nhi - nlo > LBP_G_BLOCK)
		return false;
	*lo = nlo;
	*hi = nhi;
	return true;
}

/* The global_State span the sampler reads per sample (struct lj_offsets
 * g_blk): the fields every sample needs, then the string epoch and
 * J->trace, J->sizetrace, which the sampler takes from nowhere else (a
 * layout without them in reach runs without the walker's string cache or
 * trace frames; test_layout checks every known one has them).  The string
 * epoch lies just below vmstate, J->trace some 900 bytes above it. */
static void g_block(const struct lj_layout *lay, struct lj_offsets *off)
{
	uint32_t ref = lay->gc64 ? 8 : 4;
	uint32_t lo = lay->g_vmstate, hi = lay->g_vmstate + 4;

	g_span_add(&lo, &hi, lay->g_cur_L, ref);
	g_span_add(&lo, &hi, lay->g_mainthref, ref);
	g_span_add(&lo, &hi, lay->g_jit_base, ref);
	if (lay->g_strnum)
		g_span_add(&lo, &hi, lay->g_strnum, 8);
	if (lay->g_trace && g_span_add(&lo, &hi, lay->g_trace, 8))
		g_span_add(&lo, &hi, lay->g_sizetrace, 4);
	off->g_blk = (uint16_t)lo;
	off->g_blk_len = (uint16_t)(hi - lo);
}

void layout_bpf_offsets(const struct lj_layout *lay, struct lj_offsets *off)
{
	memset(off, 0, sizeof(*off));
	off->gc64 = lay->gc64;
	off->gct = (__u8)lay->gct;
	off->sizeof_proto = lay->sizeof_proto;
	off->g_vmstate = lay->g_vmstate;
	off->g_strnum = lay->g_strnum;
	off->g_cur_L = lay->g_cur_L;
	off->g_mainthref = lay->g_mainthref;
	off->g_jit_base = lay->g_jit_base;
	off->g_trace = lay->g_trace;
	off->g_sizetrace = lay->g_sizetrace;
	off->L_base = lay->L_base;
	off->L_stack = lay->L_stack;
	off->L_stacksize = lay->L_stacksize;
	off->L_cframe = lay->L_cframe;
	off->cframe_pc = lay->cframe_pc;
	off->cframe_L = lay->cframe_L;
	off->cframe_prev = lay->cframe_prev;
	off->cframe_size = lay->cframe_size;
	off->fn_ffid = lay->fn_ffid;
	off->fn_pc = lay->fn_pc;
	off->fn_cfunc = lay->fn_cfunc;
	off->pt_sizebc = lay->pt_sizebc;
	off->pt_chunkname = lay->pt_chunkname;
	off->pt_sizept = lay->pt_sizept;
	off->pt_firstline = lay->pt_firstline;
	off->pt_numline = lay->pt_numline;
	off->str_sid = lay->str_sid;
	off->str_len = lay->str_len;
	off->str_data = lay->str_data;
	off->tab_array = lay->tab_array;
	off->tab_asize = lay->tab_asize;
	off->tr_nsnap = lay->tr_nsnap;
	off->tr_snap = lay->tr_snap;
	off->tr_snapmap = lay->tr_snapmap;
	off->tr_szmcode = lay->tr_szmcode;
	off->tr_mcode = lay->tr_mcode;
	off->tr_ir = lay->tr_ir;
	off->tr_nsnapmap = lay->tr_nsnapmap;
	off->snap_mcofs = lay->snap_mcofs;
	off->snap_nent = lay->snap_nent;
	off->g2disp = lay->g2disp;
	g_block(lay, off);
}
