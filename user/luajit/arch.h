/* SPDX-License-Identifier: MIT */
/* Everything user space knows of the target architecture, in one place
 * (bpf/regs.bpf.h is the BPF side's): what differs in LuaJIT's layouts
 * between its x86-64 and arm64 builds (the C frame of a VM activation,
 * jit_State's backend constants, a trace's machine code units and exit
 * stubs) and the DWARF register numbers of the native unwinder.  The tool
 * profiles processes of its own architecture: the compiler's target picks
 * the table (docs/arm64.md). */
#ifndef LBP_ARCH_H
#define LBP_ARCH_H

#if defined(__aarch64__)

/* The VM's C frame (src/lj_frame.h CFRAME_*, vm_arm64.dasc CFRAME_SPACE):
 * 208 bytes from sp, the previous frame at 0, SAVE_PC at 8, SAVE_L at 16;
 * GC64 only (arm64 has no other build). */
#define ARCH_CFRAME_GC64	.cframe_pc = 8, .cframe_L = 16, .cframe_prev = 0, .cframe_size = 208
#define ARCH_CFRAME_GC32	ARCH_CFRAME_GC64

/* jit_State's backend constants (src/lj_jit.h k64, k32; no ksimd on
 * arm64) are smaller than x64's, which moves every field after them (the
 * penalty cache, errinfo, param[], trace[]) and GG_State's dispatch table:
 * by 24 bytes in 2.1 until 2023 and OpenResty's, by 8 since 2.1 gave arm64
 * LJ_K64_VM_EXIT_* (measured with offsetof() on both trees, cross-built). */
#define ARCH_JSHIFT_2022	(-24)
#define ARCH_JSHIFT_2025	(-8)

/* DWARF for the Arm 64-bit Architecture, 4.1: x0..x30 are 0..30, sp 31;
 * x19..x28 callee-saved, fp (x29), lr (x30).  The PC has no number: the
 * unwinder keeps it in a slot of its own (UW_RA). */
enum {
	UW_X19 = 19, UW_FP = 29, UW_LR = 30, UW_RSP = 31, UW_RA = 32, UW_NREGS = 33,
};
#define UW_RA_COLUMN	UW_LR
#define UW_SAVED	{ 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, UW_FP, UW_LR }

/* A trace's machine code (src/lj_target_arm64.h): MCode is a 4-byte
 * instruction, SnapShot.mcofs counts them; the exit stubs follow the
 * code (at most 16 NOPs, a 4-instruction head, one per exit: read that
 * many bytes past szmcode for nexits exits) and a side trace's link
 * rewrites a branch there (jit/jsnap.c). */
#define ARCH_MCODE_UNIT_SHIFT		2
#define ARCH_EXIT_STUBS_AFTER_CODE	1
#define ARCH_EXIT_STUB_BYTES(nexits)	(((size_t)(nexits) + 21) * 4)
#define ARCH_CODE_JUMP_TO		jsnap_a64_jump_to

/* -e alloc's uprobe sits at the allocator's entry: x86-64's placement
 * after its first test and jcc (luajit/allocfn.c) has no arm64 twin. */
#define ARCH_ALLOC_PROBE_PAST_TEST	0

#else

/* src/vm_x64.dasc: CFRAME_SIZE 80, saveregs pushes below the return
 * address (user/native/unwind.c). */
#define ARCH_CFRAME_GC64	.cframe_pc = 24, .cframe_L = 16, .cframe_prev = 32, .cframe_size = 80
#define ARCH_CFRAME_GC32	.cframe_pc = 28, .cframe_L = 24, .cframe_prev = 32, .cframe_size = 80
#define ARCH_JSHIFT_2022	0
#define ARCH_JSHIFT_2025	0

/* DWARF register numbers of x86-64 (System V psABI, figure 3.36); the
 * return address column 16 is the PC's slot (UW_RA). */
enum {
	UW_RBX = 3, UW_RBP = 6, UW_RSP = 7, UW_R12 = 12, UW_R13 = 13,
	UW_R14 = 14, UW_R15 = 15, UW_RA = 16, UW_NREGS = 17,
};
#define UW_RA_COLUMN	UW_RA
#define UW_SAVED	{ UW_RBX, UW_RBP, UW_R12, UW_R13, UW_R14, UW_R15 }

/* src/lj_target_x86.h: MCode is a byte, SnapShot.mcofs counts bytes; the
 * exits' jumps are in the trace's own code. */
#define ARCH_MCODE_UNIT_SHIFT		0
#define ARCH_EXIT_STUBS_AFTER_CODE	0
#define ARCH_EXIT_STUB_BYTES(nexits)	((size_t)0 * (size_t)(nexits))
#define ARCH_CODE_JUMP_TO		jsnap_x64_jump_to

/* lj_alloc_f's first test and jcc: the uprobe goes on the jcc, which the
 * kernel emulates (luajit/allocfn.c). */
#define ARCH_ALLOC_PROBE_PAST_TEST	1
#endif

#endif
