// SPDX-License-Identifier: MIT
/* One step of a native unwind by .eh_frame CFI (elfutils' libdw reads the
 * tables; the rules are applied here, over the copied stack). */
#include "native/unwind.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>
#include <string.h>

#define EXPR_STACK	16

int uw_read(const struct uw_stack *st, uint64_t addr, uint64_t *v)
{
	if (addr < st->lo || addr - st->lo > st->len || st->len - (addr - st->lo) < 8)
		return -1;
	memcpy(v, st->bytes + (addr - st->lo), 8);
	return 0;
}

static int reg_value(const struct uw_regs *regs, unsigned reg, uint64_t *v)
{
	if (reg >= UW_NREGS || !(regs->valid & UW_BIT(reg)))
		return -1;
	*v = regs->r[reg];
	return 0;
}

/* Evaluates the DWARF expressions CFI uses (register plus offset, and the
 * arithmetic of PLT entries' CFA rules); cfa is pushed first when given. */
static int eval(const Dwarf_Op *ops, size_t nops, const struct uw_regs *regs,
		const struct uw_stack *st, const uint64_t *cfa, uint64_t *out, bool *is_value)
{
	uint64_t s[EXPR_STACK], v;
	int n = 0;

	*is_value = false;
	if (cfa)
		s[n++] = *cfa;
	for (size_t i = 0; i < nops; i++) {
		uint8_t op = ops[i].atom;

		if (n >= EXPR_STACK - 1)
			return -1;
		if (op >= DW_OP_lit0 && op <= DW_OP_lit31) {
			s[n++] = op - DW_OP_lit0;
		} else if (op >= DW_OP_breg0 && op <= DW_OP_breg31) {
			if (reg_value(regs, op - DW_OP_breg0, &v))
				return -1;
			s[n++] = v + (int64_t)ops[i].number;
		} else if (op == DW_OP_bregx) {
			if (reg_value(regs, (unsigned)ops[i].number, &v))
				return -1;
			s[n++] = v + (int64_t)ops[i].number2;
		} else if (op == DW_OP_call_frame_cfa) {
			if (!cfa)
				return -1;
			s[n++] = *cfa;
		} else if (op == DW_OP_stack_value) {
			*is_value = true;
		} else if (op == DW_OP_const1u || op == DW_OP_const2u || op == DW_OP_const4u ||
			   op == DW_OP_const8u || op == DW_OP_constu || op == DW_OP_const1s ||
			   op == DW_OP_const2s || op == DW_OP_const4s || op == DW_OP_const8s ||
			   op == DW_OP_consts) {
			s[n++] = ops[i].number;
		} else {
			/* Operators taking the top of the stack. */
			if (n < 1)
				return -1;
			switch (op) {
			case DW_OP_plus_uconst: s[n - 1] += ops[i].number; continue;
			case DW_OP_deref:
				if (uw_read(st, s[n - 1], &v))
					return -1;
				s[n - 1] = v;
				continue;
			case DW_OP_dup: s[n] = s[n - 1]; n++; continue;
			default: break;
			}
			if (n < 2)
				return -1;
			n--;
			switch (op) {
			case DW_OP_plus: s[n - 1] += s[n]; break;
			case DW_OP_minus: s[n - 1] -= s[n]; break;
			case DW_OP_and: s[n - 1] &= s[n]; break;
			case DW_OP_or: s[n - 1] |= s[n]; break;
			case DW_OP_shl: s[n - 1] <<= (s[n] & 63); break;
			case DW_OP_shr: s[n - 1] >>= (s[n] & 63); break;
			case DW_OP_ge: s[n - 1] = (int64_t)s[n - 1] >= (int64_t)s[n]; break;
			case DW_OP_gt: s[n - 1] = (int64_t)s[n - 1] > (int64_t)s[n]; break;
			case DW_OP_lt: s[n - 1] = (int64_t)s[n - 1] < (int64_t)s[n]; break;
			case DW_OP_le: s[n - 1] = (int64_t)s[n - 1] <= (int64_t)s[n]; break;
			default: return -1;
			}
		}
	}
	if (n < 1)
		return -1;
	*out = s[n - 1];
	return 0;
}

/* The caller's value of reg by frame's rule; 1 when undefined. */
static int caller_reg(Dwarf_Frame *frame, int reg, const struct uw_regs *regs,
		      const struct uw_stack *st, uint64_t cfa, uint64_t *out)
{
	Dwarf_Op mem[3], *ops = NULL;
	size_t nops = 0;
	uint64_t v;
	bool is_value;

	if (dwarf_frame_register(frame, reg, mem, &ops, &nops) < 0)
		return -1;
	if (nops == 0) {
		if (ops)	/* undefined */
			return 1;
		return reg_value(regs, reg, out);	/* same value */
	}
	if (eval(ops, nops, regs, st, &cfa, &v, &is_value))
		return -1;
	if (is_value) {
		*out = v;
		return 0;
	}
	return uw_read(st, v, out);
}

enum uw_result uw_step(struct Dwarf_CFI_s *cfi, uint64_t bias, bool top,
		       const struct uw_stack *st, struct uw_regs *regs)
{
	static const int saved[] = UW_SAVED;
	Dwarf_Frame *frame = NULL;
	Dwarf_Op *ops = NULL;
	size_t nops = 0;
	struct uw_regs next = { .valid = 0 };
	uint64_t pc = regs->r[UW_RA], cfa, ra;
	bool is_value;
	int rc;

	if (!cfi || !(regs->valid & UW_BIT(UW_RA)))
		return UW_NO_CFI;
	if (dwarf_cfi_addrframe(cfi, pc - bias - (top ? 0 : 1), &frame))
		return UW_NO_CFI;
	if (dwarf_frame_cfa(frame, &ops, &nops) || !nops ||
	    eval(ops, nops, regs, st, NULL, &cfa, &is_value)) {
		free(frame);
		return UW_BAD;
	}
	rc = caller_reg(frame, UW_RA_COLUMN, regs, st, cfa, &ra);
	if (rc) {
		free(frame);
		return rc > 0 ? UW_END : UW_BAD;
	}
	for (size_t i = 0; i < sizeof(saved) / sizeof(saved[0]); i++) {
		uint64_t v;

		if (!caller_reg(frame, saved[i], regs, st, cfa, &v)) {
			next.r[saved[i]] = v;
			next.valid |= UW_BIT(saved[i]);
		}
	}
	free(frame);
	if (!ra)
		return UW_END;
	next.r[UW_RSP] = cfa;
	next.r[UW_RA] = ra;
	next.valid |= UW_BIT(UW_RSP) | UW_BIT(UW_RA);
	*regs = next;
	return UW_OK;
}

#if defined(__aarch64__)
void uw_from_native(const struct native_regs *nr, struct uw_regs *regs)
{
	regs->valid = UW_BIT(UW_RA) | UW_BIT(UW_RSP);
	regs->r[UW_RA] = nr->ip;
	regs->r[UW_RSP] = nr->sp;
	for (int i = 0; i < NATIVE_NREGS; i++) {
		regs->r[NATIVE_REG0 + i] = nr->r[i];
		regs->valid |= UW_BIT(NATIVE_REG0 + i);
	}
}

/* saveregs (src/vm_arm64.dasc): fp and lr at 192, x19..x28 at 112 on,
 * the C frame's 208 bytes above sp (CFRAME_SPACE). */
int uw_leave_cframe(const struct uw_stack *st, struct uw_regs *regs, uint64_t cf, uint64_t size)
{
	uint64_t v;

	if (uw_read(st, cf + size - 8, &v))
		return -1;
	regs->r[UW_RA] = v;
	regs->r[UW_LR] = v;
	regs->r[UW_RSP] = cf + size;
	if (!uw_read(st, cf + size - 16, &v)) {
		regs->r[UW_FP] = v;
		regs->valid |= UW_BIT(UW_FP);
	}
	for (int i = 0; i < 10; i++) {
		if (!uw_read(st, cf + 112 + 8 * (uint64_t)i, &v)) {
			regs->r[UW_X19 + i] = v;
			regs->valid |= UW_BIT(UW_X19 + i);
		}
	}
	regs->valid |= UW_BIT(UW_RA) | UW_BIT(UW_LR) | UW_BIT(UW_RSP);
	return 0;
}
#else
void uw_from_native(const struct native_regs *nr, struct uw_regs *regs)
{
	static const int in_r[NATIVE_NREGS] = { UW_RBP, UW_RBX, UW_R12, UW_R13, UW_R14, UW_R15 };

	regs->valid = UW_BIT(UW_RA) | UW_BIT(UW_RSP);
	regs->r[UW_RA] = nr->ip;
	regs->r[UW_RSP] = nr->sp;
	for (int i = 0; i < NATIVE_NREGS; i++) {
		regs->r[in_r[i]] = nr->r[i];
		regs->valid |= UW_BIT(in_r[i]);
	}
}

int uw_leave_cframe(const struct uw_stack *st, struct uw_regs *regs, uint64_t cf, uint64_t size)
{
	static const int pushed[] = { UW_RBP, UW_RBX, UW_R15, UW_R14, UW_R13, UW_R12 };
	uint64_t v;

	if (uw_read(st, cf + size - 8, &v))
		return -1;
	regs->r[UW_RA] = v;
	regs->r[UW_RSP] = cf + size;
	/* saveregs pushes rbp, rbx, r15, r14 (and r13, r12 in builds
	 * without external unwinding, CFRAME_SIZE 96). */
	for (size_t i = 0; i < (size >= 96 ? 6 : 4); i++) {
		if (!uw_read(st, cf + size - 16 - 8 * i, &v)) {
			regs->r[pushed[i]] = v;
			regs->valid |= UW_BIT(pushed[i]);
		}
	}
	regs->valid |= UW_BIT(UW_RA) | UW_BIT(UW_RSP);
	return 0;
}
#endif
