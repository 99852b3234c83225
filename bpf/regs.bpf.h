/* The sampled thread's user-mode registers, on x86-64: from the sample's
 * own registers when the tick interrupted user mode, else from what user
 * mode left at kernel entry (a system call, a fault), at the top of the
 * thread's kernel stack.
 *
 * Which registers the walker needs is LuaJIT's x64 interpreter's register
 * assignment (src/vm_x64.dasc): BASE in rdx, PC in rbx, RB in rbp,
 * DISPATCH in r14.  Included by sampler.bpf.c.
 */
#ifndef LBP_REGS_BPF_H
#define LBP_REGS_BPF_H

#define USER_ADDR_END	0x800000000000ull	/* x86-64: the canonical hole starts here */
/* arch/x86/include/asm/page_64_types.h: 16 KiB kernel stacks (KASAN
 * kernels double it; none of the distributions' do), with pt_regs at
 * their top and no padding on x86-64 (asm/processor.h task_pt_regs). */
#define LBP_THREAD_SIZE	(16u << 10)

/* i, known to be below n (a power of two), as an index the verifier sees
 * bounded: a mask the compiler cannot drop.  Knowing the bound, it would,
 * and test a copy of i instead, whose bound these verifiers do not carry
 * over to i. */
#define BOUNDED(i, n)	({ __typeof__(i) __b = (i); barrier_var(__b); __b & ((n) - 1); })

/* Callee-saved slots searched for a spilled RB (rbp): a C function pushes
 * what it saves in its prologue, right below its return address (base.bpf.h). */
#define SAVED_SLOTS	8

struct uregs {
	__u64 ip, sp, dx, bx, bp, r14;
};

/* Copies the registers user mode left at kernel entry into *copy: exact
 * for an interrupt or fault taken in the interpreter; BASE and PC are only
 * trusted later for IPs inside it, which a system call never is.  One
 * copy: BPF_CORE_READ would make a helper call per field. */
static __always_inline void task_user_regs(struct pt_regs *copy)
{
	const void *src;

	if (bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_task_pt_regs)) {
		src = (void *)bpf_task_pt_regs(bpf_get_current_task_btf());
	} else {
		/* Before 5.15 (and bpf_get_current_task_btf, 5.11): the top of
		 * the task's kernel stack, as task_pt_regs() computes it. */
		struct task_struct *t = (void *)bpf_get_current_task();
		__u64 stack = (__u64)BPF_CORE_READ(t, stack);

		src = (void *)(stack + LBP_THREAD_SIZE - sizeof(struct pt_regs));
	}
	if (bpf_probe_read_kernel(copy, sizeof(*copy), src))
		__builtin_memset(copy, 0, sizeof(*copy));
}

static __always_inline void uregs_from(struct uregs *r, const struct pt_regs *p)
{
	r->ip = p->ip;
	r->sp = p->sp;
	r->dx = p->dx;
	r->bx = p->bx;
	r->bp = p->bp;
	r->r14 = p->r14;
}

/* The same from a program's context (its registers are read in place:
 * the verifier refuses a pointer into it). */
#define UREGS_FROM_CTX(r, ctxregs) do {		\
	(r)->ip = (ctxregs).ip;			\
	(r)->sp = (ctxregs).sp;			\
	(r)->dx = (ctxregs).dx;			\
	(r)->bx = (ctxregs).bx;			\
	(r)->bp = (ctxregs).bp;			\
	(r)->r14 = (ctxregs).r14;		\
} while (0)

/* User mode iff the IP is a user-space address (below the canonical
 * hole); reading cs would need its exact width in this kernel. */
#define IN_USER_MODE(ctxregs)	((ctxregs).ip < USER_ADDR_END)

#endif
