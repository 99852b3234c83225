/* SPDX-License-Identifier: MIT */
/* The BPF sampler compiled as user-space code (walker_bpf.c, once per
 * architecture) and run on one sample: the registers of a thread stopped
 * in user mode and the memory its process had then (shim.h's reader). */
#ifndef LBP_WALKER_H
#define LBP_WALKER_H

#include <stdint.h>

#include "base/sampler_types.h"

/* A sample: the interpreter's registers by role (bpf/regs.bpf.h struct
 * uregs; disp is the architecture's own: x86-64 DISPATCH, g + g2disp;
 * arm64 GL, g), and the process's one VM as the loader hands it over. */
struct walker_in {
	uint32_t tgid, tid;
	uint64_t ip, sp, base, pc, rb, disp;
	struct vm_slot vm;
};

struct walker_out {
	struct sample_key key;
	struct stack_trace st;
	uint64_t counters[CNT__MAX];
	uint64_t reads;		/* bpf_probe_read_user calls */
};

/* Runs on_sample on in from freshly loaded maps: 0 when the sample was
 * counted (out filled), -1 when the program dropped it. */
int walker_x86_run(const struct walker_in *in, struct walker_out *out);
int walker_arm64_run(const struct walker_in *in, struct walker_out *out);

#endif
