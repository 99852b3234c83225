/* SPDX-License-Identifier: MIT */
/* bpf_tracing.h for the user-space build of the BPF sources: a BTF
 * program is a plain function of its arguments. */
#ifndef LBP_SHIM_BPF_TRACING_H
#define LBP_SHIM_BPF_TRACING_H

#define BPF_PROG(name, ...)	name(__VA_ARGS__)

#if defined(__TARGET_ARCH_arm64)
#define PT_REGS_PARM3(x)	((x)->regs[2])
#define PT_REGS_PARM4(x)	((x)->regs[3])
#else
#define PT_REGS_PARM3(x)	((x)->dx)
#define PT_REGS_PARM4(x)	((x)->cx)
#endif

#endif
