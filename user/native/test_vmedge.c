// SPDX-License-Identifier: MIT
/* native/vmedge: a VM activation's first and last instructions, fed the
 * bytes of OpenResty's libluajit (lj_vm_pcall's saveregs, vm_leave_cp's
 * restoreregs) over a stack laid out by hand. */
#include <string.h>

#include "base/unit.h"
#include "native/vmedge.h"

#if defined(__x86_64__)	/* vmedge_step is this machine's (native/vmedge.c) */

#define CF_SIZE	80
#define SP	0x7ffc00001000ull

/* lj_vm_pcall from its first instruction: saveregs, then mov ebx, 5. */
static const uint8_t pcall[] = { 0x55, 0x53, 0x41, 0x57, 0x41, 0x56, 0x48, 0x83, 0xec, 0x28,
				 0xbb, 0x05, 0x00, 0x00, 0x00 };
/* vm_leave_cp after its mov L->cframe, RA: xor eax, eax; restoreregs; ret. */
static const uint8_t leave[] = { 0x31, 0xc0, 0x48, 0x83, 0xc4, 0x28, 0x41, 0x5e, 0x41, 0x5f,
				 0x5b, 0x5d, 0xc3 };

static uint64_t words[32];
static const struct uw_stack st = { SP, (const uint8_t *)words, sizeof(words) };

static struct uw_regs at_sp(uint64_t sp)
{
	struct uw_regs r = { .valid = 1u << UW_RSP | 1u << UW_RA | 1u << UW_RBX | 1u << UW_RBP |
			     1u << UW_R14 | 1u << UW_R15 };

	r.r[UW_RSP] = sp;
	r.r[UW_RA] = 0x1000;
	r.r[UW_RBX] = 0xb0;
	r.r[UW_RBP] = 0xb1;
	r.r[UW_R14] = 0xb4;
	r.r[UW_R15] = 0xb5;
	return r;
}

static void prologue(void)
{
	struct uw_regs r;

	/* At push rbx: rbp pushed, the return address above it. */
	words[0] = 0xc1;
	words[1] = 0x401234;
	r = at_sp(SP);
	CHECK("saveregs after push rbp: the caller's rbp and return address",
	      !vmedge_step(pcall + 1, sizeof(pcall) - 1, CF_SIZE, &st, &r) &&
	      r.r[UW_RBP] == 0xc1 && r.r[UW_RA] == 0x401234 && r.r[UW_RSP] == SP + 16 &&
	      r.r[UW_RBX] == 0xb0);
	/* At the first instruction: nothing pushed. */
	words[0] = 0x401234;
	r = at_sp(SP);
	CHECK("saveregs at its first push: the return address at SP",
	      !vmedge_step(pcall, sizeof(pcall), CF_SIZE, &st, &r) && r.r[UW_RA] == 0x401234 &&
	      r.r[UW_RSP] == SP + 8 && r.r[UW_RBP] == 0xb1);
	/* At sub rsp: all four pushed (r14 last, at SP). */
	words[0] = 0xc4, words[1] = 0xc5, words[2] = 0xc3, words[3] = 0xc1, words[4] = 0x401234;
	r = at_sp(SP);
	CHECK("saveregs at sub rsp: the four pushed registers",
	      !vmedge_step(pcall + 6, sizeof(pcall) - 6, CF_SIZE, &st, &r) &&
	      r.r[UW_R14] == 0xc4 && r.r[UW_R15] == 0xc5 && r.r[UW_RBX] == 0xc3 &&
	      r.r[UW_RBP] == 0xc1 && r.r[UW_RA] == 0x401234 && r.r[UW_RSP] == SP + 40);
	/* Past saveregs (mov ebx, 5): not an edge. */
	r = at_sp(SP);
	CHECK("past saveregs: not recognised",
	      vmedge_step(pcall + 10, sizeof(pcall) - 10, CF_SIZE, &st, &r) == -1 &&
	      r.r[UW_RA] == 0x1000);
	/* A build without external unwinding pushes r13, r12 too: the same
	 * code is not its saveregs. */
	r = at_sp(SP);
	CHECK("saveregs of another CFRAME_SIZE: refused",
	      vmedge_step(pcall, sizeof(pcall), 96, &st, &r) == -1);
}

static void epilogue(void)
{
	static const uint8_t order[] = { 0x53, 0x41, 0x56, 0x41, 0x57, 0x48, 0x83, 0xec, 0x28 };
	struct uw_regs r;

	memset(words, 0, sizeof(words));
	/* The whole C frame at SP: pushed registers and return address at
	 * its top (CFRAME_SIZE - 8 ... - 40). */
	words[5] = 0xc4, words[6] = 0xc5, words[7] = 0xc3, words[8] = 0xc1, words[9] = 0x405678;
	r = at_sp(SP);
	CHECK("restoreregs at xor eax, eax: the C frame undone",
	      !vmedge_step(leave, sizeof(leave), CF_SIZE, &st, &r) && r.r[UW_R14] == 0xc4 &&
	      r.r[UW_R15] == 0xc5 && r.r[UW_RBX] == 0xc3 && r.r[UW_RBP] == 0xc1 &&
	      r.r[UW_RA] == 0x405678 && r.r[UW_RSP] == SP + CF_SIZE);
	/* Among the pops: at pop rbx (r14 and r15 popped). */
	r = at_sp(SP + 56);
	CHECK("restoreregs at pop rbx", !vmedge_step(leave + 10, sizeof(leave) - 10, CF_SIZE, &st, &r) &&
	      r.r[UW_RBX] == 0xc3 && r.r[UW_RBP] == 0xc1 && r.r[UW_R14] == 0xb4 &&
	      r.r[UW_RA] == 0x405678 && r.r[UW_RSP] == SP + CF_SIZE);
	r = at_sp(SP + 72);
	CHECK("restoreregs at ret", !vmedge_step(leave + 12, 1, CF_SIZE, &st, &r) &&
	      r.r[UW_RA] == 0x405678 && r.r[UW_RSP] == SP + CF_SIZE);
	/* Cut short: the ret is not in the bytes given. */
	r = at_sp(SP);
	CHECK("restoreregs without its ret: refused",
	      vmedge_step(leave, sizeof(leave) - 1, CF_SIZE, &st, &r) == -1);
	/* Pushes in another order are not saveregs. */
	r = at_sp(SP);
	CHECK("pushes in another order: refused",
	      vmedge_step(order, sizeof(order), CF_SIZE, &st, &r) == -1);
	/* A frame beyond the copy. */
	r = at_sp(SP + sizeof(words) - 16);
	CHECK("restoreregs beyond the copy: refused",
	      vmedge_step(leave, sizeof(leave), CF_SIZE, &st, &r) == -1);
}

#endif

/* arm64 (vmedge_a64_step, built everywhere): the instructions of Debian's
 * arm64 libluajit's lj_vm_pcall and vm_leave_cp (CFRAME_SPACE 208), little
 * endian. */
static void put32(uint8_t *at, uint32_t w)
{
	for (int i = 0; i < 4; i++)
		at[i] = (uint8_t)(w >> (8 * i));
}

static int a64_at(const uint32_t *ins, int n, unsigned cframe_size, uint64_t *sp)
{
	uint8_t code[16];

	for (int i = 0; i < n; i++)
		put32(code + 4 * i, ins[i]);
	return vmedge_a64_step(code, 4 * (size_t)n, cframe_size, sp);
}

static void a64(void)
{
	const uint32_t sub_sp = 0xd10343ff, stp_fp_lr = 0xa90c7bfd, add_fp = 0x910303fd,
		       stp_x20 = 0xa90b4ff4, ldp_fp_lr = 0xa94c7bfd, add_sp = 0x910343ff,
		       ret = 0xd65f03c0, mov = 0xaa0003f3;
	uint64_t sp;

	sp = 0x1000;
	CHECK("a64 saveregs' sub sp: sp is the caller's", !a64_at(&sub_sp, 1, 208, &sp) && sp == 0x1000);
	sp = 0x1000;
	CHECK("a64 at stp fp, lr: the frame is reserved", !a64_at(&stp_fp_lr, 1, 208, &sp) && sp == 0x10d0);
	sp = 0x1000;
	CHECK("a64 at add fp", !a64_at(&add_fp, 1, 208, &sp) && sp == 0x10d0);
	sp = 0x1000;
	CHECK("a64 among the stp of x19..x28: the frame at SP, not here",
	      a64_at(&stp_x20, 1, 208, &sp) == -1 && sp == 0x1000);
	CHECK("a64 at ldp fp, lr: the frame at SP", a64_at(&ldp_fp_lr, 1, 208, &sp) == -1);
	const uint32_t leave[] = { add_sp, ret };
	sp = 0x1000;
	CHECK("a64 restoreregs' add sp before ret", !a64_at(leave, 2, 208, &sp) && sp == 0x10d0);
	sp = 0x1000;
	CHECK("a64 add sp without the ret: refused", a64_at(leave, 1, 208, &sp) == -1 && sp == 0x1000);
	CHECK("a64 at ret", !a64_at(&ret, 1, 208, &sp) && sp == 0x1000);
	CHECK("a64 another CFRAME_SPACE: refused", a64_at(&sub_sp, 1, 224, &sp) == -1);
	CHECK("a64 any other instruction: refused", a64_at(&mov, 1, 208, &sp) == -1);
	CHECK("a64 no code: refused", vmedge_a64_step((const uint8_t *)"", 0, 208, &sp) == -1);
}

int main(void)
{
#if defined(__x86_64__)
	prologue();
	epilogue();
#endif
	a64();
	UNIT_EXIT();
}
