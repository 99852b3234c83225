/* One step of a native unwind by .eh_frame CFI, over a copy of the user
 * stack taken at the sample instant (bpf/native.bpf.h).  Pure: the caller
 * finds the CFI of the module holding the PC (target/nmods.h). */
#ifndef LBP_UNWIND_H
#define LBP_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* DWARF register numbers of x86-64 (System V psABI, figure 3.36). */
enum {
	UW_RBX = 3, UW_RBP = 6, UW_RSP = 7, UW_R12 = 12, UW_R13 = 13,
	UW_R14 = 14, UW_R15 = 15, UW_RA = 16, UW_NREGS = 17,
};

struct uw_regs {
	uint64_t r[UW_NREGS];	/* r[UW_RA] is the PC */
	uint32_t valid;		/* bit per register known */
};

/* The copied stack: bytes[0] is at address lo. */
struct uw_stack {
	uint64_t lo;
	const uint8_t *bytes;
	size_t len;
};

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
