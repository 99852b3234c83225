/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Frame base selection for the sampler: where the top Lua frame starts
 * when the interpreter's registers or C code it called hold it, rather
 * than L->base, which is stale whenever the interpreter has not stored it
 * (src/vm_x64.dasc stores L->base only before calls that can throw or GC).
 * The per-architecture instruction matching is regs.bpf.h's.
 */
#ifndef LBP_BASE_BPF_H
#define LBP_BASE_BPF_H

#include "access.bpf.h"
#include "regs.bpf.h"
#include "walk.bpf.h"

/* The function in the frame slot below base, when base can be a frame
 * base of this Lua stack, else 0. */
static __always_inline __u64 frame_func_at(const struct lj_offsets *off, __u64 stack,
					   __u64 stack_end, __u64 base)
{
	__u64 tv, fn;
	__u8 gct = 0;

	if (base <= stack + 8 || base > stack_end || (base & 7))
		return 0;
	tv = read_u64(base - (off->gc64 ? 16 : 8));
	if (off->gc64)
		return gc64_itype(tv) == LJ_TFUNC ? tv & LJ_GCVMASK : 0;
	fn = tv & 0xffffffffull;
	if (!fn || bpf_probe_read_user(&gct, 1, (void *)(fn + off->gct)) || gct != LJ_GCT(LJ_TFUNC))
		return 0;
	return fn;
}

/* Frame base while the interpreter runs C code it called directly (IP
 * outside the VM, vmstate still INTERP).  The VM runs with rsp at its C
 * frame (L->cframe), so the return address into the VM is at cframe - 8.
 * Most such calls store L->base first; the ones that do not keep BASE in
 * RB (rbp, callee-saved) and restore it with `mov BASE, RB` right after the
 * call (math_extern and friends in src/vm_x64.dasc, src/vm_x86.dasc), so
 * that instruction at the return address says L->base is stale.  RB is
 * then still in rbp, or saved by the callee just below its return address.
 * Returns the base, L->base (*stale = 0) when the VM stored it, or 0 with
 * *stale = 1 when it is stale and RB cannot be found.  saved: where the
 * callee-saved slots are read to. */
static __always_inline __u64 c_callee_base(const struct vm_slot *v, __u64 stack,
					   __u64 stack_end, __u64 cf, __u64 L_base,
					   const struct uregs *r, __u64 saved[SAVED_SLOTS], int *stale)
{
	const struct lj_offsets *off = &v->off;
	__u64 ret = 0, mask = off->gc64 ? ~0ull : 0xffffffffull;

	*stale = 0;
#if defined(__TARGET_ARCH_arm64)
	/* BASE is callee-saved (x19): a C function the VM called keeps it,
	 * whether the VM stored L->base or not. */
	if (r->rb != L_base && frame_func_at(off, stack, stack_end, r->rb)) {
		*stale = 1;
		return r->rb;
	}
#endif
	if (!cf || bpf_probe_read_user(&ret, 8, (void *)(cf - 8)) ||
	    ret < v->vm_lo || ret >= v->vm_hi || !restores_base_from_rb(off, ret))
		return L_base;	/* the VM stored L->base, or a C function did */
	*stale = 1;
	if (frame_func_at(off, stack, stack_end, r->rb & mask))
		return r->rb & mask;
	if (bpf_probe_read_user(saved, SAVED_SLOTS * 8, (void *)(cf - 8 - SAVED_SLOTS * 8)))
		return 0;
	/* Nearest the return address first: pushed first. */
	for (int i = SAVED_SLOTS - 1; i >= 0; i--) {
		__u64 b = saved[i] & mask;

		if (saved[i] == b && frame_func_at(off, stack, stack_end, b))
			return b;
	}
	return 0;
}

/* Whether pc lies in the bytecode of fn, a Lua function. */
static __always_inline bool lua_pc_ok(const struct lj_offsets *off, __u64 fn, __u64 pc)
{
	__u64 bc = read_ref(off, fn + off->fn_pc);
	__u32 sizebc = 0;

	if (!bc || bpf_probe_read_user(&sizebc, 4,
				       (void *)(bc - off->sizeof_proto + off->pt_sizebc)))
		return false;
	return pc > bc && pc <= bc + 4ull * sizebc;
}

/* Frame base from the interpreter's BASE and PC registers, when
 * they validate against the Lua stack and the function's bytecode. */
static __always_inline __u64 interp_base(const struct vm_slot *v, __u64 stack,
					 __u64 stack_end, const struct uregs *r, __u64 *pc)
{
	const struct lj_offsets *off = &v->off;
	__u64 mask = off->gc64 ? ~0ull : 0xffffffffull;
	__u64 base = r->base & mask, fn, caller, cur;
	__u8 ffid = 0xff;
	__u32 ins = 0;

	*pc = 0;
	fn = frame_func_at(off, stack, stack_end, base);
	/* Right after a C call that kept BASE in RB: BASE is not restored yet. */
	if (!fn && restores_base_from_rb(off, r->ip)) {
		base = r->rb & mask;
		fn = frame_func_at(off, stack, stack_end, base);
	}
	if (!fn) {
		/* A fast function returning (->fff_res* in src/vm_x64.dasc):
		 * its result already covers the function slot, PC holds the
		 * link to the Lua caller, whose frame is now the top one. */
		if ((r->pc & 3) || bpf_probe_read_user(&ins, 4, (void *)(r->pc - 4)))
			return 0;
		caller = base - 8 * (1 + off->gc64 + ((ins >> 8) & 0xff));
		fn = frame_func_at(off, stack, stack_end, caller);
		if (!fn || !lua_pc_ok(off, fn, r->pc))
			return 0;
		*pc = r->pc;
		return caller;
	}
	if (bpf_probe_read_user(&ffid, 1, (void *)(fn + off->fn_ffid)))
		return 0;
	if (ffid != 0)
		return base;	/* a fast function running in the VM: no PC */
	/* Frame PCs point just after the current instruction; in the
	 * dispatch, before PC is advanced, the current one is at PC. */
	cur = r->pc + (pc_not_advanced(off, r->ip) ? 4 : 0);
	if (lua_pc_ok(off, fn, cur))
		*pc = cur;
	return base;
}

#endif
