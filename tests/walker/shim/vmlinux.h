/* SPDX-License-Identifier: MIT */
/* The kernel types the BPF sources use, for compiling them as user-space
 * code (tests/walker/README.md): only the fields they touch, in the
 * layout the architecture the walker is built for gives them.  Stands in
 * for vmlinux/ARCH/vmlinux.h; never part of the BPF build. */
#ifndef LBP_SHIM_VMLINUX_H
#define LBP_SHIM_VMLINUX_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <linux/types.h>

typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;

#if defined(__TARGET_ARCH_arm64)
/* arch/arm64/include/uapi/asm/ptrace.h user_pt_regs; the kernel's
 * pt_regs begins with the same fields. */
struct user_pt_regs {
	__u64 regs[31];
	__u64 sp;
	__u64 pc;
	__u64 pstate;
};
struct pt_regs {
	__u64 regs[31];
	__u64 sp;
	__u64 pc;
	__u64 pstate;
	__u64 orig_x0;
};
typedef struct user_pt_regs bpf_user_pt_regs_t;
#else
/* arch/x86/include/asm/ptrace.h, x86-64. */
struct pt_regs {
	unsigned long r15, r14, r13, r12, bp, bx, r11, r10, r9, r8;
	unsigned long ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp, ss;
};
typedef struct pt_regs bpf_user_pt_regs_t;
#endif

struct bpf_perf_event_data {
	bpf_user_pt_regs_t regs;
	__u64 sample_period;
	__u64 addr;
};

struct task_struct {
	unsigned int __state;
	int pid;
	void *stack;
};

enum bpf_func_id {
	BPF_FUNC_task_pt_regs = 175,
};

enum bpf_map_type {
	BPF_MAP_TYPE_HASH = 1,
	BPF_MAP_TYPE_ARRAY = 2,
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
	BPF_MAP_TYPE_LRU_HASH = 9,
	BPF_MAP_TYPE_RINGBUF = 27,
};

enum {
	BPF_ANY = 0,
	BPF_NOEXIST = 1,
	BPF_EXIST = 2,
};

#endif
