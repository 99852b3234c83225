// SPDX-License-Identifier: MIT
/* bpf/sampler.bpf.c, unchanged, as user-space code for the architecture
 * -D__TARGET_ARCH_x86 or -D__TARGET_ARCH_arm64 names, over the shim
 * (shim/: kernel types, helpers, maps; tests/walker/README.md).  Built
 * once per architecture; everything but walker_ARCH_run is made local to
 * its object (Makefile), so both link into one program. */
#include "sampler.bpf.c"

#include "shim.h"
#include "walker.h"

#if defined(__TARGET_ARCH_arm64)
#define WALKER_RUN	walker_arm64_run

/* The perf_event context of a sample in user mode (PSTATE EL0t). */
static void ctx_regs(struct bpf_perf_event_data *ctx, const struct walker_in *in)
{
	ctx->regs.pc = in->ip;
	ctx->regs.sp = in->sp;
	ctx->regs.regs[REG_BASE] = in->base;
	ctx->regs.regs[REG_PC] = in->pc;
	ctx->regs.regs[REG_GL] = in->disp;
	ctx->regs.pstate = 0;
}
#else
#define WALKER_RUN	walker_x86_run

static void ctx_regs(struct bpf_perf_event_data *ctx, const struct walker_in *in)
{
	ctx->regs.ip = in->ip;
	ctx->regs.sp = in->sp;
	ctx->regs.dx = in->base;
	ctx->regs.bx = in->pc;
	ctx->regs.bp = in->rb;
	ctx->regs.r14 = in->disp;
	ctx->regs.cs = 0x33;	/* __USER_CS */
}
#endif

int WALKER_RUN(const struct walker_in *in, struct walker_out *out)
{
	static struct bpf_perf_event_data ctx;
	struct proc_info pi = { .nvms = 1 };
	struct counter_block *cb;
	struct scratch *sc;
	__u32 tgid = in->tgid, zero = 0;

	shim_reset(in->tgid, in->tid);
	memset(&ctx, 0, sizeof(ctx));
	ctx_regs(&ctx, in);
	pi.vm[0] = in->vm;
	if (bpf_map_update_elem(&procs, &tgid, &pi, BPF_ANY))
		return -1;
	memset(out, 0, sizeof(*out));
	on_sample(&ctx);
	sc = bpf_map_lookup_elem(&scratch, &zero);
	cb = bpf_map_lookup_elem(&counters, &zero);
	if (!sc || !cb || !cb->n[CNT_SAMPLES])
		return -1;
	out->key = sc->key;
	out->st = sc->st;
	memcpy(out->counters, cb->n, sizeof(out->counters));
	out->reads = shim_reads();
	/* Counted: the key is in the counts map. */
	return bpf_map_lookup_elem(&counts, &sc->key) ? 0 : -1;
}
