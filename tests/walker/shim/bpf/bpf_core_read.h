/* SPDX-License-Identifier: MIT */
/* CO-RE for the user-space build of the BPF sources: plain field reads.
 * The walker under test never reads kernel memory: the samples it is
 * given interrupted user mode (tests/walker/README.md). */
#ifndef LBP_SHIM_BPF_CORE_READ_H
#define LBP_SHIM_BPF_CORE_READ_H

#define bpf_core_enum_value_exists(type, value)	0
#define bpf_core_field_exists(field)		1
#define BPF_CORE_READ(src, field)		((src) ? (src)->field : 0)

#endif
