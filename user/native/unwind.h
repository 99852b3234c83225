/* SPDX-License-Identifier: MIT */
/* One step of a native unwind by .eh_frame CFI, over a copy of the user
 * stack taken at the sample instant (bpf/native.bpf.h).  Pure: the caller
 * finds the CFI of the module holding the PC (native/nmods.h). */
#ifndef LBP_UNWIND_H
#define LBP_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/sampler_types.h"

/* The DWARF register numbers, the column CFI names the return address in
 * and the registers a frame's rules restore are per architecture
 * (luajit/arch.h).  UW_RA is the slot of the PC. */
#include "luajit/arch.h"

#define UW_BIT(reg)	(1ull << (reg))

struct uw_regs {
	uint64_t r[UW_NREGS];	/* r[UW_RA] is the PC */
	uint64_t valid;		/* bit per register known */
};


/* The copied stack: bytes[0] is at address lo. */
struct uw_stack {
	uint64_t lo;
	const uint8_t *bytes;
	size_t len;
};

/* The sampled registers (BPF's copy) as the unwinder's. */
void uw_from_native(const struct native_regs *nr, struct uw_regs *regs);

/* Steps regs out of a LuaJIT VM activation whose C frame (CFRAME_SIZE
 * size) is at cf: its C caller's state, from what the VM's entry saved
 * there (src/vm_x64.dasc, vm_arm64.dasc saveregs).  -1 when the copy does
 * not hold it. */
int uw_leave_cframe(const struct uw_stack *st, struct uw_regs *regs, uint64_t cf, uint64_t size);

/* 8 bytes at addr from the copy; -1 when outside it. */
int uw_read(const struct uw_stack *st, uint64_t addr, uint64_t *v);

enum uw_result {
	UW_OK,		/* regs now hold the caller's state */
	UW_END,		/* the CFI says there is no caller: a thread's bottom */
	UW_NO_CFI,	/* no rule covers the PC */
	UW_BAD,		/* a rule needs what the copy does not hold */
};

struct Dwarf_CFI_s;
/* Steps regs from a frame to its caller by cfi, whose addresses are the
 * module's link-time ones (pc - bias).  top: the frame is the sampled one,
 * its PC exact (callers' PCs are return addresses, looked up at PC - 1). */
enum uw_result uw_step(struct Dwarf_CFI_s *cfi, uint64_t bias, bool top,
		       const struct uw_stack *st, struct uw_regs *regs);

#endif
