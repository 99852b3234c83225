/* A VM activation's first and last instructions, stepped by reading them
 * (target/vmedge.h).  Only the exact sequences of src/vm_x64.dasc are
 * recognised: saveregs pushes rbp, rbx, r15, r14 (and r13, r12 in builds
 * without external unwinding) and reserves the rest of CFRAME_SIZE with
 * sub rsp; restoreregs undoes it with add rsp, the pops in reverse and
 * ret, after vm_leave_cp's xor eax, eax. */
#include "target/vmedge.h"

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
/* arm64's saveregs (src/vm_arm64.dasc) is not decoded yet: a sample at an
 * activation's first or last instructions leaves by the frame at SP. */
int vmedge_step(const uint8_t *code, size_t len, unsigned cframe_size,
		const struct uw_stack *st, struct uw_regs *regs)
{
	(void)code, (void)len, (void)cframe_size, (void)st, (void)regs;
	return -1;
}
#endif
