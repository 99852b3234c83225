// SPDX-License-Identifier: MIT
/* A VM activation's first and last instructions, stepped by reading them
 * (native/vmedge.h).  Only the exact sequences of src/vm_x64.dasc and
 * src/vm_arm64.dasc are recognised.  x86-64: saveregs pushes rbp, rbx,
 * r15, r14 (and r13, r12 in builds without external unwinding) and
 * reserves the rest of CFRAME_SIZE with sub rsp; restoreregs undoes it
 * with add rsp, the pops in reverse and ret, after vm_leave_cp's xor eax,
 * eax.  arm64: below. */
#include "native/vmedge.h"

#include <string.h>

#if defined(__x86_64__)
#define MAX_SAVED	6
#define OP_PUSH		0x50
#define OP_POP		0x58
#define MODRM_SUB_RSP	0xec	/* 83 /5 or 81 /5, rsp */
#define MODRM_ADD_RSP	0xc4	/* 83 /0 or 81 /0, rsp */

/* The order saveregs pushes in; restoreregs pops in reverse. */
static const int saved[MAX_SAVED] = { UW_RBP, UW_RBX, UW_R15, UW_R14, UW_R13, UW_R12 };

/* DWARF numbers of the x86 register encodings 0-15. */
static const int dwarf_of[16] = { 0, 2, 1, UW_RBX, UW_RSP, UW_RBP, 4, 5,
				  8, 9, 10, 11, UW_R12, UW_R13, UW_R14, UW_R15 };

struct cursor {
	const uint8_t *c;
	size_t len, at;
};

/* push r64 or pop r64 (op), REX.B for r8-r15: its DWARF register, or -1. */
static int push_pop(struct cursor *k, uint8_t op)
{
	size_t at = k->at;
	unsigned hi = 0;

	if (at < k->len && k->c[at] == 0x41) {
		hi = 8;
		at++;
	}
	if (at >= k->len || (k->c[at] & 0xf8) != op)
		return -1;
	k->at = at + 1;
	return dwarf_of[(k->c[at] & 7) | hi];
}

/* sub rsp, imm or add rsp, imm (by modrm): the immediate, or -1. */
static int64_t rsp_imm(struct cursor *k, uint8_t modrm)
{
	const uint8_t *c = k->c + k->at;
	size_t n = k->len - k->at;
	uint32_t v;

	if (n >= 4 && c[0] == 0x48 && c[1] == 0x83 && c[2] == modrm && c[3] < 0x80) {
		k->at += 4;
		return c[3];
	}
	if (n >= 7 && c[0] == 0x48 && c[1] == 0x81 && c[2] == modrm) {
		memcpy(&v, c + 3, 4);
		if (v >= 0x10000)
			return -1;
		k->at += 7;
		return v;
	}
	return -1;
}

/* The caller's state once saved[0..done) are pushed at sp (the last one
 * at sp) and the return address is above them. */
static int to_caller(const struct uw_stack *st, struct uw_regs *regs, uint64_t sp, int done)
{
	struct uw_regs next = *regs;
	uint64_t v;

	for (int i = 0; i < done; i++) {
		if (uw_read(st, sp + 8 * (uint64_t)(done - 1 - i), &v))
			return -1;
		next.r[saved[i]] = v;
		next.valid |= 1u << saved[i];
	}
	if (uw_read(st, sp + 8 * (uint64_t)done, &v))
		return -1;
	next.r[UW_RA] = v;
	next.r[UW_RSP] = sp + 8 * (uint64_t)done + 8;
	next.valid |= 1u << UW_RA | 1u << UW_RSP;
	*regs = next;
	return 0;
}

/* The rest of saveregs: pushes (a tail of saved[]), then sub rsp. */
static int prologue(struct cursor k, int nsaved, int64_t space, const struct uw_stack *st,
		    struct uw_regs *regs)
{
	int ahead[MAX_SAVED], n = 0, r, done;

	while (n < MAX_SAVED && (r = push_pop(&k, OP_PUSH)) >= 0)
		ahead[n++] = r;
	if (n > nsaved || rsp_imm(&k, MODRM_SUB_RSP) != space)
		return -1;
	done = nsaved - n;
	for (int i = 0; i < n; i++)
		if (ahead[i] != saved[done + i])
			return -1;
	return to_caller(st, regs, regs->r[UW_RSP], done);
}

/* The rest of restoreregs: [xor eax, eax] [add rsp] pops (a tail of
 * saved[] reversed) and ret, run over the copy. */
static int epilogue(struct cursor k, int nsaved, int64_t space, const struct uw_stack *st,
		    struct uw_regs *regs)
{
	struct uw_regs next = *regs;
	uint64_t sp = regs->r[UW_RSP], v;
	int64_t add;
	int left = -1, r;	/* pops still to come, -1: not known yet */

	if (k.len - k.at >= 2 && k.c[k.at] == 0x31 && k.c[k.at + 1] == 0xc0)
		k.at += 2;
	add = rsp_imm(&k, MODRM_ADD_RSP);
	if (add >= 0) {
		if (add != space)
			return -1;
		sp += (uint64_t)add;
		left = nsaved;
	}
	while ((r = push_pop(&k, OP_POP)) >= 0) {
		if (left < 0)	/* started among the pops: which one is this */
			for (left = nsaved; left > 0 && saved[left - 1] != r; left--)
				;
		if (left <= 0 || saved[left - 1] != r || uw_read(st, sp, &v))
			return -1;
		next.r[r] = v;
		next.valid |= 1u << r;
		sp += 8;
		left--;
	}
	if (left > 0 || k.at >= k.len || k.c[k.at] != 0xc3 || uw_read(st, sp, &v))
		return -1;
	next.r[UW_RA] = v;
	next.r[UW_RSP] = sp + 8;
	next.valid |= 1u << UW_RA | 1u << UW_RSP;
	*regs = next;
	return 0;
}

int vmedge_step(const uint8_t *code, size_t len, unsigned cframe_size,
		const struct uw_stack *st, struct uw_regs *regs)
{
	struct cursor k = { code, len, 0 };
	int nsaved = cframe_size >= 96 ? 6 : 4;
	int64_t space = (int64_t)cframe_size - 8 - 8 * nsaved;

	if (!(regs->valid & (1u << UW_RSP)) || space <= 0)
		return -1;
	if (!prologue(k, nsaved, space, st, regs))
		return 0;
	return epilogue(k, nsaved, space, st, regs);
}
#else
int vmedge_step(const uint8_t *code, size_t len, unsigned cframe_size,
		const struct uw_stack *st, struct uw_regs *regs)
{
	const uint64_t need = UW_BIT(UW_LR) | UW_BIT(UW_RSP);
	uint64_t sp;

	(void)st;
	if ((regs->valid & need) != need)
		return -1;
	sp = regs->r[UW_RSP];
	if (vmedge_a64_step(code, len, cframe_size, &sp))
		return -1;
	regs->r[UW_RA] = regs->r[UW_LR];
	regs->r[UW_RSP] = sp;
	regs->valid |= UW_BIT(UW_RA);
	return 0;
}
#endif

/* ==== arm64 ==== */

/* src/vm_arm64.dasc saveregs: sub sp, sp, #CFRAME_SPACE; stp fp, lr,
 * [sp, #CFRAME_SPACE-16]; add fp, sp, #CFRAME_SPACE-16; then stp of
 * x19..x28 and d8..d15, which change no register.  restoreregs: the ldp
 * of those, ldp fp, lr; add sp, sp, #CFRAME_SPACE; then ret.  Before that
 * stp of fp and lr, and after their ldp, the return address is in lr and
 * every callee-saved register holds the caller's value; between, the
 * frame at SP holds them (native_stack.c's fallback). */
#define A64_RET			0xd65f03c0u
#define A64_SUB_SP_SP(n)	(0xd10003ffu | (uint32_t)(n) << 10)
#define A64_ADD_SP_SP(n)	(0x910003ffu | (uint32_t)(n) << 10)
#define A64_STP_FP_LR_SP(n)	(0xa9007bfdu | (uint32_t)((n) / 8) << 15)
#define A64_ADD_FP_SP(n)	(0x910003fdu | (uint32_t)(n) << 10)

static uint32_t a64_word(const uint8_t *c)
{
	return (uint32_t)c[0] | (uint32_t)c[1] << 8 | (uint32_t)c[2] << 16 | (uint32_t)c[3] << 24;
}

int vmedge_a64_step(const uint8_t *code, size_t len, unsigned cframe_size, uint64_t *sp)
{
	uint32_t w;

	if (len < 4 || cframe_size < 16 || cframe_size >= 4096 || cframe_size % 16)
		return -1;
	w = a64_word(code);
	if (w == A64_SUB_SP_SP(cframe_size) || w == A64_RET)
		return 0;
	if (w == A64_STP_FP_LR_SP(cframe_size - 16) || w == A64_ADD_FP_SP(cframe_size - 16) ||
	    (w == A64_ADD_SP_SP(cframe_size) && len >= 8 && a64_word(code + 4) == A64_RET)) {
		*sp += cframe_size;
		return 0;
	}
	return -1;
}
