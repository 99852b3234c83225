/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* --native: each CPU sample's user stack, copied for user space to unwind.
 *
 * Native code (the host, libc, the FFI's targets) is unwound in user space
 * from the .eh_frame of each mapped file (user/native/unwind.c); BPF only
 * copies what that needs and what changes right after the sample: the
 * user registers and a window of the stack from the sampled SP up.  The
 * sample then goes to user space through native_ring instead of the
 * counts map, with the key it would have been counted under.
 *
 * The walker also marks the Lua frame each VM activation begins with
 * (native_is_entry), so that user space knows which Lua frames go between
 * which C frames.
 *
 * Everything here is gated by native_stack, a load-time constant: with
 * --native off the verifier drops it all.  Included by walk.bpf.h.
 */
#ifndef LBP_NATIVE_BPF_H
#define LBP_NATIVE_BPF_H

#include "prelude.bpf.h"
#include "regs.bpf.h"

/* Set by the loader: 1 with --native. */
const volatile __u32 native_stack = 0;

#define NATIVE_PAGE		4096
#define NATIVE_READS		(NATIVE_STACK_MAX / NATIVE_PAGE + 1)

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, NATIVE_RING_BYTES);
} native_ring SEC(".maps");

/* A record with a page of slack after stack[], so that each page read is
 * provably inside it (the verifier bounds offset and length separately). */
struct native_slot {
	struct native_sample s;
	__u8 slack[NATIVE_PAGE];
};

/* Whether a frame whose link is link (at stack address frame, the link
 * slot) was entered from C: a C frame's link (FRAME_C, FRAME_CP: lua_call,
 * lua_pcall, lj_vm_resume) or the continuation of an FFI callback
 * (LJ_CONT_FFI_CALLBACK = 1, src/lj_frame.h frame_iscont_fficb; the
 * callback's frame is set up by lj_ccallback_enter, src/lj_ccallback.c). */
static __always_inline int native_is_entry(__s64 link, __u64 frame, __u32 gc64)
{
	__u64 contv = ~0ull;

	if ((link & 3) == 1)
		return 1;
	if ((link & 7) != 2)
		return 0;
	/* frame_contv: 3 slots below the link (GC64), else the low half of
	 * the slot below. */
	if (gc64)
		bpf_probe_read_user(&contv, 8, (void *)(frame - 24));
	else if (!bpf_probe_read_user(&contv, 4, (void *)(frame - 8)))
		contv &= 0xffffffffull;
	return contv == 1;
}

/* The user registers: the sample's when it interrupted user mode, else
 * the ones user mode left at kernel entry (a syscall, a fault), which the
 * sampler copied to kregs. */
static __always_inline void native_regs_of(struct bpf_perf_event_data *ctx,
					   const struct pt_regs *kregs, struct native_regs *nr)
{
	/* From the context first, whatever the mode: the compiler would
	 * merge the two copies through a pointer to the context, which the
	 * verifier refuses. */
	NATIVE_REGS_FROM(nr, ctx->regs);
	if (!kregs)
		return;
	NATIVE_REGS_FROM(nr, *kregs);
}

/* Sends the sample with key and its native stack; cframe is the sampled
 * thread's L->cframe (0 outside Lua), resumer the C frame of the thread
 * its walk was stitched to (0: none).  Returns 1 when sent (the caller
 * then does not count it), 0 when --native is off or the ring is full. */
static __always_inline int native_send(struct bpf_perf_event_data *ctx,
				       const struct pt_regs *kregs,
				       const struct sample_key *key, __u64 cframe,
				       __u64 resumer)
{
	struct native_slot *rec;
	__u64 off = 0;

	if (!native_stack || !ctx)
		return 0;
	rec = bpf_ringbuf_reserve(&native_ring, sizeof(*rec), 0);
	if (!rec)
		return 0;
	rec->s.key = *key;
	rec->s.cframe = cframe;
	rec->s.cframe_resumer = resumer;
	rec->s.pad = 0;
	native_regs_of(ctx, kregs, &rec->s.regs);
	/* Page by page, so that the stack's top end (an unmapped page above
	 * it) cuts the copy instead of failing it.  64-bit lengths, and
	 * bounds the verifier sees on the registers the read is given: with
	 * 32-bit ones the compiler tests zero-extended copies, and with
	 * bounds it can prove it drops the mask and the clamp (6.1 and 6.18
	 * then refuse the copy). */
	for (int i = 0; i < NATIVE_READS; i++) {
		__u64 a = rec->s.regs.sp + off;
		__u64 n = NATIVE_PAGE - (a & (NATIVE_PAGE - 1)), at = off;

		if (off >= NATIVE_STACK_MAX)
			break;
		if (n > NATIVE_STACK_MAX - off)
			n = NATIVE_STACK_MAX - off;
		barrier_var(at);
		at &= NATIVE_STACK_MAX - 1;
		barrier_var(n);
		if (n > NATIVE_PAGE)
			n = NATIVE_PAGE;
		if (bpf_probe_read_user(rec->s.stack + at, n, (void *)a))
			break;
		off += n;
	}
	rec->s.stack_len = off;
	bpf_ringbuf_submit(rec, 0);
	return 1;
}

#endif
