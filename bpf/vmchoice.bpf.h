/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Which of a process's LuaJIT VMs runs Lua on the sampled thread, read
 * from its global_State and lua_State blocks; and the jit.zone it is in.
 */
#ifndef LBP_VMCHOICE_BPF_H
#define LBP_VMCHOICE_BPF_H

#include "access.bpf.h"
#include "maps.bpf.h"

/* A VM activation's C frame must lie this close above the sampled stack
 * pointer to belong to this thread (sampler.h LBP_CFRAME_MAX_DIST). */
const volatile __u64 cframe_max_dist = LBP_CFRAME_MAX_DIST;

/* Reads VM v's global_State block into gblk. */
static __always_inline long read_g_block(__u8 *gblk, const struct vm_slot *v)
{
	__u32 len = v->off.g_blk_len;

	if (len < 8 || len > LBP_G_BLOCK)
		return -1;
	return bpf_probe_read_user(gblk, len, (void *)(v->g + v->off.g_blk));
}

/* The lua_State running Lua on this thread for VM v, or 0, with its fields
 * (L_BLOCK bytes from L->base) in lblk and the distance of its C frame
 * above sp in *dist.  gblk holds the VM's global_State block. */
static __always_inline __u64 active_state(const struct vm_slot *v, const __u8 *gblk,
					  __u8 *lblk, __u64 sp, __u64 *dist)
{
	const struct lj_offsets *off = &v->off;
	__u32 ref = off->gc64 ? 8 : 4;
	__u64 L, cf = 0;

	L = g_field(off, gblk, off->g_cur_L, ref);
	if (L && !bpf_probe_read_user(lblk, L_BLOCK, (void *)(L + off->L_base)))
		cf = field(lblk, L_BLOCK, off->L_cframe - off->L_base, 8) & CFRAME_RAWMASK;
	if (!cf) {
		/* A C function that resumed a coroutine leaves cur_L on the
		 * suspended coroutine until it returns: try the main thread. */
		L = g_field(off, gblk, off->g_mainthref, ref);
		if (L && !bpf_probe_read_user(lblk, L_BLOCK, (void *)(L + off->L_base)))
			cf = field(lblk, L_BLOCK, off->L_cframe - off->L_base, 8) & CFRAME_RAWMASK;
	}
	if (!cf || cf < sp || cf - sp >= cframe_max_dist)
		return 0;
	*dist = cf - sp;
	return L;
}

/* The GCstr on top of the jit.zone stack (the module table's array part).
 * A global function, so the verifier checks its loop once, not again on
 * every path of every program that samples (scalars only, as global
 * functions take). */
__noinline __u64 zone_top_of(__u64 zone_tab, __u32 tab_array, __u32 tab_asize, __u32 gc64)
{
	__u64 *slots, array = 0, top = 0;
	__u32 asize = 0, n, zero = 0;
	struct scratch *sc;

	sc = bpf_map_lookup_elem(&scratch, &zero);
	if (!zone_tab || !sc)
		return 0;
	slots = sc->zone_slots;
	bpf_probe_read_user(&array, gc64 ? 8 : 4, (void *)(zone_tab + tab_array));
	bpf_probe_read_user(&asize, 4, (void *)(zone_tab + tab_asize));
	if (!array || asize < 2)
		return 0;
	n = asize < LBP_MAX_ZONE ? asize : LBP_MAX_ZONE;
	if (bpf_probe_read_user(slots, sizeof(sc->zone_slots), (void *)array))
		return 0;
	for (__u32 i = 1; i < LBP_MAX_ZONE; i++) {
		__u64 tv = slots[i];

		if (i >= n)
			break;
		if (gc64) {
			if (tv == ~0ull)	/* nil */
				break;
			if (gc64_itype(tv) == LJ_TSTR)
				top = tv & LJ_GCVMASK;
		} else {
			if ((__u32)(tv >> 32) == ~0u)
				break;
			if ((__u32)(tv >> 32) == LJ_TSTR)
				top = tv & 0xffffffffull;
		}
	}
	return top;
}

static __always_inline __u64 zone_top(const struct vm_slot *v)
{
	return zone_top_of(v->zone_tab, v->off.tab_array, v->off.tab_asize, v->off.gc64);
}

/* The VM the dispatch register names (VM_REG_OF, regs.bpf.h), LBP_MAX_VMS
 * when none.  x64 keeps DISPATCH (g + g2disp) in r14, arm64 GL (g) in x22:
 * the interpreter throughout (src/vm_x64.dasc, vm_x86.dasc, vm_arm64.dasc),
 * GC64 traces too (src/lj_target_x86.h RSET_GPR leaves it out,
 * lj_target_arm64.h RID_GL), and the C code they call leaves it there, as
 * C code preserves callee-saved registers. */
static __always_inline __u32 vm_by_dispatch(const struct proc_info *pi, __u64 disp)
{
	for (__u32 i = 0; i < LBP_MAX_VMS; i++) {
		if (i >= pi->nvms)
			break;
		if (pi->vm[i].off.g2disp && disp == VM_REG_OF(&pi->vm[i].off, pi->vm[i].g))
			return i;
	}
	return LBP_MAX_VMS;
}

/* Whether VM i of process tgid runs Lua on this thread: the distance of
 * its innermost activation's C frame above the sampled stack pointer, or
 * ~0 when it runs none here.  Leaves its global_State block in sc->g
 * (sc->g_vm = i), its lua_State's block in sc->l[i] and the lua_State in
 * sc->vm_L[i].  A global function, checked once on its own. */
__noinline __u64 vm_distance(__u32 tgid, __u32 i)
{
	struct proc_info *pi = bpf_map_lookup_elem(&procs, &tgid);
	struct scratch *sc;
	__u32 zero = 0;
	__u64 dist = ~0ull;

	sc = bpf_map_lookup_elem(&scratch, &zero);
	if (!sc || !pi || i >= LBP_MAX_VMS || i >= pi->nvms)
		return ~0ull;
	i = BOUNDED(i, LBP_MAX_VMS);
	sc->g_vm = LBP_MAX_VMS;
	if (read_g_block(sc->g, &pi->vm[i]))
		return ~0ull;
	sc->g_vm = i;
	sc->vm_L[i] = active_state(&pi->vm[i], sc->g, sc->l[i], sc->regs.sp, &dist);
	return sc->vm_L[i] ? dist : ~0ull;
}

/* The VM running Lua on the current thread of process tgid (sampled at
 * sc->regs), LBP_MAX_VMS when none: the one the dispatch register names,
 * checked like any other, else the one whose innermost activation lies
 * nearest above the stack pointer.  A global function: the choice is
 * one unknown index to the walk that follows, which the verifier checks
 * once rather than once per VM it could be. */
__noinline __u32 vm_choose(__u32 tgid)
{
	struct proc_info *pi = bpf_map_lookup_elem(&procs, &tgid);
	struct counter_block *cb;
	struct scratch *sc;
	__u32 zero = 0, i, chosen = LBP_MAX_VMS;
	__u64 best = ~0ull, d;

	sc = bpf_map_lookup_elem(&scratch, &zero);
	cb = bpf_map_lookup_elem(&counters, &zero);
	if (!sc || !pi)
		return LBP_MAX_VMS;
	i = vm_by_dispatch(pi, sc->regs.disp);
	if (i < LBP_MAX_VMS && vm_distance(tgid, i) != ~0ull) {
		bump(cb, CNT_VM_DISPATCH);
		return i;
	}
	for (__u32 j = 0; j < LBP_MAX_VMS; j++) {
		if (j == i)
			continue;	/* runs no Lua on this thread */
		d = vm_distance(tgid, j);
		if (d < best) {
			best = d;
			chosen = j;
		}
	}
	return chosen;
}

#endif
