/* SPDX-License-Identifier: MIT */
/* The one table of per-variant LuaJIT object layouts, and the validation
 * that picks a layout for a candidate VM or refuses it.
 *
 * Every LuaJIT offset the project uses lives in this table; the BPF side
 * receives the subset it needs as struct lj_offsets (bpf/sampler.h).
 */
#ifndef LBP_LAYOUT_H
#define LBP_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/sampler_types.h"

struct mem_reader;

struct lj_layout {
	const char *name;
	bool gc64;		/* 8-byte GCRef/MRef, two-slot frames */
	bool openresty;		/* OpenResty's luajit2: its own fast-function ids */
	bool vmthref;		/* upstream >= 2025-11: shifted global_State, opcodes */
	bool tarantool;		/* Tarantool's fork: its own fast-function ids */
	const char *refusal;	/* recognised, but refused: why (names the version) */
	uint16_t sizeof_L;	/* sizeof(lua_State) = GG -> g distance */

	/* lua_State */
	uint16_t L_gct, L_dummy_ffid, L_glref, L_base, L_stack, L_cframe, L_stacksize;
	/* OpenResty's lua_State.exdata (lua_setexdata: lua-nginx-module keeps
	 * the coroutine's ngx_http_request_t there, user/nginx/), a void *
	 * after stacksize; exdata2 follows it.  0: the variant has none. */
	uint16_t L_exdata;
	/* global_State */
	uint16_t g_gc_root;	/* GCState.root: the newest GC object */
	uint16_t g_strempty, g_vmstate, g_mainthref, g_registrytv;
	uint16_t g_strnum;	/* g->str.num, then g->str.id; 0: strings have no sid */
	uint16_t g_bc_cfunc_int, g_cur_L, g_jit_base;
	uint16_t g_trace;	/* &J->trace relative to g */
	uint16_t g_sizetrace;
	uint16_t g2disp;	/* GG->dispatch - g */
	uint16_t len_ddisp;	/* dispatch[len_ddisp] is lj_vm_asm_begin */
	uint32_t bc_cfunc_ins;	/* BCINS_AD(BC_FUNCC, LUA_MINSTACK, 0) */
	/* GCHeader */
	uint16_t gct;
	/* GCfunc */
	uint16_t fn_ffid, fn_pc, fn_cfunc;
	/* GCproto */
	uint16_t sizeof_proto, pt_sizebc, pt_k, pt_sizekgc, pt_sizeuv, pt_chunkname;
	uint16_t pt_sizept;	/* the whole block: header, bytecode, constants, debug info */
	uint16_t pt_firstline, pt_numline, pt_lineinfo, pt_uvinfo, pt_varinfo;
	/* GCstr */
	uint16_t str_sid;	/* sid: a new id for each new string (hash before 2020) */
	uint16_t str_len, str_data;
	/* GCtab and Node */
	uint16_t tab_array, tab_node, tab_asize, tab_hmask;
	uint16_t node_size, node_key;	/* Node: val at 0, then key */
	/* GCtrace */
	uint16_t tr_nsnap, tr_snap, tr_snapmap, tr_startpt, tr_startpc, tr_szmcode, tr_mcode;
	uint16_t tr_ir;		/* IRIns *, biased: ir[ref] for any IRRef */
	uint16_t tr_nsnapmap;	/* entries in snapmap */
	/* SnapShot: mcofs (0 = none, before 2020) and nent */
	uint8_t snap_mcofs, snap_nent;
	/* C frame of a VM activation (src/lj_frame.h CFRAME_OFS_*, CFRAME_SIZE) */
	uint16_t cframe_pc, cframe_L, cframe_prev, cframe_size;
	/* Bytecode numbering below BC_FUNCF is shared by every variant except
	 * that vmthref builds insert BNOT..BSAR at 89..95. */
	uint8_t bc_max;

	/* -- Heap census (user/heap/heap_*.c) ------------------------------
	 * Everything the heap walker reads; g_strtab == 0 means the census
	 * does not know this variant.  Sizes are those the GC's free
	 * functions pass to lj_mem_free (src/lj_tab.c lj_tab_free, ...). */
	uint16_t g_gc_total, g_gc_state, g_gc_mmudata;
	uint16_t g_strtab, g_strmask;	/* StrInternState.tab (a pointer), .mask */
	uint16_t g_tmpbuf;		/* SBuf: w, e, b are pointers; size e - b */
	uint8_t sbuf_e, sbuf_b;		/* SBuf.e and SBuf.b (src/lj_buf.h) */
	uint16_t g_ctype_state;		/* CTState *, 0 without FFI */
	uint16_t L_top, L_openupval, L_env, L_status;
	uint16_t sizeof_tab, tab_colo, tab_meta;	/* GCudata.metatable is at tab_meta too */
	uint16_t sizeof_udata, ud_len, ud_env;
	uint16_t sizeof_upval, uv_closed, uv_tv, uv_v;
	uint16_t fn_nupvalues, fn_env, fn_uvptr, fn_upvalue;	/* GCfuncL.uvptr, GCfuncC.upvalue */
	uint16_t sizeof_fnl0, sizeof_fnc0;	/* sizeLfunc(0), sizeCfunc(0) */
	uint16_t sizeof_cdata, sizeof_ctype, ctype_size;	/* CType: info at 0 */
	uint16_t sizeof_trace, tr_nins, tr_nk, sizeof_snap;	/* IRIns 8, SnapEntry 4 */
	/* -- End of heap census fields -------------------------------------- */

	/* ---- JIT health (--jit): the trace compiler's own records ----------
	 * jit_State follows global_State in GG_State (src/lj_dispatch.h); its
	 * fields are given relative to J, J itself relative to g. */
	uint16_t g_J;			/* &GG->J - &GG->g */
	uint16_t J_pc, J_pt;		/* last recorded PC and prototype */
	uint16_t J_state;		/* TraceState: 0 = idle */
	uint16_t J_penalty, J_penaltyslot;	/* HotPenalty[64], round-robin index */
	uint16_t J_errinfo;		/* TValue: argument of the last trace error */
	uint8_t penalty_size, penalty_val, penalty_reason;	/* HotPenalty */
	/* GCtrace (J->cur is one too, at J + 0); tr_nins is the heap's */
	uint16_t tr_startins, tr_nchild, tr_traceno, tr_link, tr_root;
	uint16_t tr_nextroot, tr_nextside, tr_linktype;
	/* Blacklisted opcodes written by src/lj_trace.c blacklist_pc */
	uint8_t bc_ifuncf;
	/* Side exits (src/lj_jit.h SnapShot, lj_trace.c trace_hotside):
	 * J->param[JIT_P_hotexit] and [JIT_P_tryside], relative to J;
	 * SnapShot.count and the value it keeps once a side trace is linked
	 * (SNAPCOUNT_DONE).  SnapShot.mapofs is a uint32_t at 0 in every
	 * variant; sizeof_snap and snap_nent are given above. */
	uint16_t J_hotexit, J_tryside;
	uint8_t snap_count, snapcount_done;		/* BC_IFUNCF; BC_IFUNCV is 3 above */
	/* ---- end of JIT health ---------------------------------------------- */

	/* -- Allocation sampling (-e alloc, user/luajit/allocfn.c) -----------
	 * global_State.allocf: the lua_Alloc the VM calls for every
	 * allocation (a real pointer, 8 bytes in every x86-64 build). */
	bool has_allocf;
	uint16_t g_allocf;
	/* -- End of allocation sampling fields ------------------------------ */
};

/* Why a candidate failed validation, for -v. */
struct layout_probe {
	uint64_t gg;			/* candidate GG_State address */
	const struct lj_layout *layout;	/* the match, or NULL */
	const struct lj_layout *refused;/* a version recognised and refused */
	char why[160];
};

/* Number of layouts in the table and access by index (for tests). */
int layout_count(void);
const struct lj_layout *layout_at(int i);

/* Cheap pre-filter for a scan: gct == thread and dummy_ffid == FF_C at
 * either width's offsets, in at least 32 bytes at b. */
bool layout_signature_hint(const uint8_t *b);

/* Checks the lua_State signature at gg (gct 6, dummy ffid 1, glref
 * pointing just past it) in bytes already read; returns sizeof(lua_State)
 * for the GC64 or non-GC64 reading it matches, or 0. */
unsigned layout_signature(const uint8_t *bytes, uint64_t addr, bool gc64);

/* Validates a candidate GG_State against every layout; fills probe->why on
 * refusal.  Returns 0 with probe->layout set on a match. */
int layout_identify(struct mem_reader *mem, uint64_t gg, bool gc64, struct layout_probe *probe);

/* The BPF view of a layout. */
void layout_bpf_offsets(const struct lj_layout *lay, struct lj_offsets *off);

/* Reads a GCRef/MRef of the layout's width. */
int layout_read_ref(struct mem_reader *mem, const struct lj_layout *lay, uint64_t addr,
		    uint64_t *out);

#endif
