/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Everything the BPF side knows of the target architecture, in one place
 * (as the layout table, user/luajit/layout.c, is for LuaJIT versions):
 * the sampled thread's user-mode registers (from the sample's own registers
 * when the tick interrupted user mode, else from what user mode left at
 * kernel entry, a system call or a fault, at the top of the thread's
 * kernel stack), which of them LuaJIT's interpreter keeps its state in, the
 * registers --native copies, and the machine code the walker recognises.
 * Picked by the target the BPF objects are built for (-D__TARGET_ARCH_x86
 * or arm64, Makefile); docs/arm64.md lists the per-architecture facts.
 *
 * struct uregs holds the interpreter's registers by role:
 *   base  BASE, the current Lua frame's base;
 *   pc    PC, the next bytecode instruction;
 *   rb    where the VM keeps BASE across a C call that does not store
 *         L->base (x64: RB, callee-saved; arm64: BASE itself is);
 *   disp  the register that names the VM: DISPATCH (x64), GL (arm64).
 * Included by sampler.bpf.c.
 */
#ifndef LBP_REGS_BPF_H
#define LBP_REGS_BPF_H

#include "prelude.bpf.h"

/* i, known to be below n (a power of two), as an index the verifier sees
 * bounded: a mask the compiler cannot drop.  Knowing the bound, it would,
 * and test a copy of i instead, whose bound these verifiers do not carry
 * over to i. */
#define BOUNDED(i, n)	({ __typeof__(i) __b = (i); barrier_var(__b); __b & ((n) - 1); })

/* Callee-saved slots searched for a spilled RB (x64): a C function pushes
 * what it saves in its prologue, right below its return address (base.bpf.h). */
#define SAVED_SLOTS	8

struct uregs {
	__u64 ip, sp, base, pc, rb, disp;
};

#if defined(__TARGET_ARCH_arm64)
/* --- arm64 ------------------------------------------------------------------
 * LuaJIT's arm64 interpreter (src/vm_arm64.dasc): BASE in x19, PC in x21,
 * GL (the global_State) in x22, all callee-saved: C code the VM calls keeps
 * them, and the JIT keeps GL in x22 too (src/lj_target_arm64.h RID_GL). */
#define REG_BASE		19
#define REG_PC			21
#define REG_GL			22
/* A trace's machine code is counted in 4-byte instructions (MCode is
 * uint32_t, src/lj_target_arm64.h): SnapShot.mcofs is in those units. */
#define MCODE_UNIT_SHIFT	2
/* arch/arm64/include/asm/memory.h: 16 KiB kernel stacks (KASAN doubles
 * them; no distribution kernel has it), pt_regs at their top. */
#define LBP_THREAD_SIZE		(16u << 10)

#define UREGS_FROM_CTX(r, ctxregs) do {			\
	(r)->ip = (ctxregs).pc;				\
	(r)->sp = (ctxregs).sp;				\
	(r)->base = (ctxregs).regs[REG_BASE];		\
	(r)->pc = (ctxregs).regs[REG_PC];		\
	(r)->rb = (ctxregs).regs[REG_BASE];		\
	(r)->disp = (ctxregs).regs[REG_GL];		\
} while (0)

/* User mode iff the saved PSTATE's mode field says EL0 (PSR_MODE_MASK 0xf,
 * PSR_MODE_EL0t 0, arch/arm64/include/uapi/asm/ptrace.h). */
#define IN_USER_MODE(ctxregs)	(((ctxregs).pstate & 0xf) == 0)

/* The dispatch register's value for a VM whose global_State is at g: GL
 * is g itself. */
#define VM_REG_OF(off, g)	(g)

/* No VM code restores BASE from another register after a C call: BASE
 * (x19) is callee-saved, so the callee keeps it. */
static __always_inline bool restores_base_from_rb(const struct lj_offsets *off, __u64 ret)
{
	return false;
}

/* Whether the interpreter at ip is about to fetch the instruction PC
 * points at, PC not yet advanced past it: ins_next's `ldr INSw, [PC], #4`
 * (w16, x21: 0xb84046b0), which loads and advances in one instruction
 * (src/vm_arm64.dasc ins_NEXT, replicated in every handler: `.if 1`). */
static __always_inline bool pc_not_advanced(const struct lj_offsets *off, __u64 ip)
{
	__u32 ins = 0;

	if (bpf_probe_read_user(&ins, 4, (void *)ip))
		return false;
	return ins == 0xb84046b0u;
}

/* --native: the registers the user-space unwinder starts from (their
 * DWARF numbers: user/native/unwind.h), x19..x28, fp (x29), lr (x30). */
#define NATIVE_REGS_FROM(nr_, src_) do {					\
	(nr_)->ip = (src_).pc;						\
	(nr_)->sp = (src_).sp;						\
	for (int __i = 0; __i < NATIVE_NREGS; __i++)			\
		(nr_)->r[__i] = (src_).regs[NATIVE_REG0 + __i];		\
} while (0)

#else
/* --- x86-64 -----------------------------------------------------------------
 * LuaJIT's x64 interpreter (src/vm_x64.dasc): BASE in rdx, PC in rbx, RB
 * in rbp, DISPATCH in r14. */
/* arch/x86/include/asm/page_64_types.h: 16 KiB kernel stacks (KASAN
 * kernels double it; none of the distributions' do), with pt_regs at
 * their top and no padding on x86-64 (asm/processor.h task_pt_regs). */
#define LBP_THREAD_SIZE		(16u << 10)
#define USER_ADDR_END		0x800000000000ull	/* the canonical hole starts here */
/* MCode is a byte (src/lj_target_x86.h): SnapShot.mcofs counts bytes. */
#define MCODE_UNIT_SHIFT	0

#define UREGS_FROM_CTX(r, ctxregs) do {		\
	(r)->ip = (ctxregs).ip;			\
	(r)->sp = (ctxregs).sp;			\
	(r)->base = (ctxregs).dx;		\
	(r)->pc = (ctxregs).bx;			\
	(r)->rb = (ctxregs).bp;			\
	(r)->disp = (ctxregs).r14;		\
} while (0)

/* User mode iff the IP is a user-space address (below the canonical
 * hole); reading cs would need its exact width in this kernel. */
#define IN_USER_MODE(ctxregs)	((ctxregs).ip < USER_ADDR_END)

/* DISPATCH: g + g2disp (GG_State's dispatch table). */
#define VM_REG_OF(off, g)	((g) + (off)->g2disp)

/* Whether the code bytes in ins (little-endian) start with `mov BASE, RB`:
 * 48 89 ea (mov rdx, rbp) in GC64 builds, 89 ea (mov edx, ebp) otherwise. */
static __always_inline bool is_mov_base_rb(const struct lj_offsets *off, __u64 ins)
{
	if (off->gc64)
		return (ins & 0xffffff) == 0xea8948;
	return (ins & 0xffff) == 0xea89;
}

/* Whether the VM code at ret, where a call returns to, restores BASE from
 * RB: at once, or after one 4-byte instruction that uses the call's
 * result or reloads RC (cvtsi2sd xmm0, eax after lj_tab_len; movzx ecx,
 * PC_RA after pow), as the call sites that keep BASE in RB do
 * (src/vm_x64.dasc: "mov RB, BASE // Save BASE" ... "mov BASE, RB"). */
static __always_inline bool restores_base_from_rb(const struct lj_offsets *off, __u64 ret)
{
	__u64 ins = 0;

	if (bpf_probe_read_user(&ins, sizeof(ins), (void *)ret))
		return false;
	if (is_mov_base_rb(off, ins))
		return true;
	return ((ins & 0xff) == 0x0f || (ins & 0xff) == 0xf2) && is_mov_base_rb(off, ins >> 32);
}

/* Whether the interpreter at ip is about to fetch the instruction PC
 * points at, PC not yet advanced past it.  Every instruction ends in
 * ins_next (src/vm_x64.dasc, src/vm_x86.dasc ins_NEXT):
 *   8b 03        mov eax, [PC]      (PC: rbx)
 *   0f b6 cc     movzx ecx, ah
 *   0f b6 e8     movzx ebp, al
 *   (48) 83 c3 04  add PC, 4        (rex.w in GC64 builds)
 * Up to the add, PC holds the next instruction, not one past the current;
 * after a taken branch it is the target, and PC - 4 would name the
 * instruction before the target, which did not run (the line before a
 * loop, an `if` body skipped). */
static __always_inline bool pc_not_advanced(const struct lj_offsets *off, __u64 ip)
{
	/* The IP may be at any of the four instructions: the 8 bytes read
	 * there (little-endian) are compared with the rest of the sequence,
	 * masked to its length where that is under 8 bytes. */
	__u64 add = off->gc64 ? 0x04c38348ull : 0x04c383ull;
	__u32 add_len = off->gc64 ? 4 : 3;
	__u64 code = 0;

	if (bpf_probe_read_user(&code, 8, (void *)ip))
		return false;
	if (code == 0xe8b60fccb60f038bull)			/* mov eax, [PC] */
		return true;
	if (code == (0xe8b60fccb60full | add << 48))		/* movzx ecx, ah */
		return true;
	if ((code & ((1ull << (8 * (3 + add_len))) - 1)) ==	/* movzx ebp, al */
	    (0xe8b60full | add << 24))
		return true;
	return (code & ((1ull << (8 * add_len)) - 1)) == add;	/* add PC, 4 */
}

/* --native: the registers the user-space unwinder starts from (their
 * DWARF numbers: user/native/unwind.h). */
#define NATIVE_REGS_FROM(nr_, src_) do {		\
	(nr_)->ip = (src_).ip;			\
	(nr_)->sp = (src_).sp;			\
	(nr_)->r[0] = (src_).bp;			\
	(nr_)->r[1] = (src_).bx;			\
	(nr_)->r[2] = (src_).r12;		\
	(nr_)->r[3] = (src_).r13;		\
	(nr_)->r[4] = (src_).r14;		\
	(nr_)->r[5] = (src_).r15;		\
} while (0)
#endif

/* Copies the registers user mode left at kernel entry into *copy: exact
 * for an interrupt or fault taken in the interpreter; BASE and PC are only
 * trusted later for IPs inside it, which a system call never is.  One
 * copy: BPF_CORE_READ would make a helper call per field. */
static __always_inline void task_user_regs(struct pt_regs *copy)
{
	const void *src;

	if (bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_task_pt_regs)) {
		src = (void *)bpf_task_pt_regs(bpf_get_current_task_btf());
	} else {
		/* Before 5.15 (and bpf_get_current_task_btf, 5.11): the top of
		 * the task's kernel stack, as task_pt_regs() computes it. */
		struct task_struct *t = (void *)bpf_get_current_task();
		__u64 stack = (__u64)BPF_CORE_READ(t, stack);

		src = (void *)(stack + LBP_THREAD_SIZE - sizeof(struct pt_regs));
	}
	if (bpf_probe_read_kernel(copy, sizeof(*copy), src))
		__builtin_memset(copy, 0, sizeof(*copy));
}

static __always_inline void uregs_from(struct uregs *r, const struct pt_regs *p)
{
	UREGS_FROM_CTX(r, *p);
}

#endif
