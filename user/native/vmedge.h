/* SPDX-License-Identifier: MIT */
/* The first and last instructions of a VM activation (src/vm_x64.dasc
 * and vm_arm64.dasc saveregs, restoreregs), where its C frame is not
 * whole and the unwind entry of the interpreter (which describes the
 * whole frame) is wrong: stepped to the C caller by reading the code
 * ahead of the PC.  Pure. */
#ifndef LBP_VMEDGE_H
#define LBP_VMEDGE_H

#include <stddef.h>
#include <stdint.h>

#include "native/unwind.h"

/* code[0..len) is the code at regs' PC (the sampled one), cframe_size the
 * VM's CFRAME_SIZE (80, or 96 in builds without external unwinding).  When
 * the code ahead is the rest of saveregs (pushes, then sub rsp) or of
 * restoreregs (add rsp, pops, ret), regs become the C caller's and 0 is
 * returned; else -1, regs untouched. */
int vmedge_step(const uint8_t *code, size_t len, unsigned cframe_size,
		const struct uw_stack *st, struct uw_regs *regs);

/* arm64's part, pure and built on every architecture (its unit test runs
 * on the build machine): code at the PC, cframe_size CFRAME_SPACE (208).
 * At saveregs' sub sp, stp fp, lr or add fp, or at restoreregs' add sp
 * before ret, or at a ret, the return address is the lr register and 0 is
 * returned with *sp made the caller's; else -1, *sp untouched. */
int vmedge_a64_step(const uint8_t *code, size_t len, unsigned cframe_size, uint64_t *sp);

#endif
