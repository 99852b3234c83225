/* One step of a native unwind by .eh_frame CFI (elfutils' libdw reads the
 * tables; the rules are applied here, over the copied stack). */
#include "target/unwind.h"

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
	if (reg >= UW_NREGS || !(regs->valid & (1u << reg)))
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
	static const int saved[] = { UW_RBX, UW_RBP, UW_R12, UW_R13, UW_R14, UW_R15 };
	Dwarf_Frame *frame = NULL;
	Dwarf_Op *ops = NULL;
	size_t nops = 0;
	struct uw_regs next = { .valid = 0 };
	uint64_t pc = regs->r[UW_RA], cfa, ra;
	bool is_value;
	int rc;

	if (!cfi || !(regs->valid & (1u << UW_RA)))
		return UW_NO_CFI;
	if (dwarf_cfi_addrframe(cfi, pc - bias - (top ? 0 : 1), &frame))
		return UW_NO_CFI;
	if (dwarf_frame_cfa(frame, &ops, &nops) || !nops ||
	    eval(ops, nops, regs, st, NULL, &cfa, &is_value)) {
		free(frame);
		return UW_BAD;
	}
	rc = caller_reg(frame, UW_RA, regs, st, cfa, &ra);
	if (rc) {
		free(frame);
		return rc > 0 ? UW_END : UW_BAD;
	}
	for (size_t i = 0; i < sizeof(saved) / sizeof(saved[0]); i++) {
		uint64_t v;

		if (!caller_reg(frame, saved[i], regs, st, cfa, &v)) {
			next.r[saved[i]] = v;
			next.valid |= 1u << saved[i];
		}
	}
	free(frame);
	if (!ra)
		return UW_END;
	next.r[UW_RSP] = cfa;
	next.r[UW_RA] = ra;
	next.valid |= 1u << UW_RSP | 1u << UW_RA;
	*regs = next;
	return UW_OK;
}
