// SPDX-License-Identifier: MIT
/* --check-kernel: every mode's programs loaded once, nothing attached.
 *
 * One line per program a mode loads: the verifier's instructions
 * processed against its limit of a million, the stack of its deepest call
 * chain against the 512 bytes one may use (with each subprogram's, as the
 * verifier lists them), and its states; or the line that says why it was
 * refused.  The kernel matrix test (tests/kernels/) reads it. */
#include "cli/check_cmd.h"

#include <stdio.h>

#include "cli/options.h"
#include "sample/collector.h"
#include "sample/verifier.h"
#include "sample/vmwatch.h"

struct check_mode {
	const char *name;
	struct collector_opts co;	/* beyond the sizes every mode shares */
	bool vmwatch;			/* -a's VM creation probes instead */
};

static const struct check_mode modes[] = {
	{ "cpu", { .hz = 99 }, false },
	{ "native", { .hz = 99, .native = true }, false },
	{ "off-cpu", { .offcpu = true, .no_cpu_clock = true }, false },
	{ "wall", { .hz = 99, .offcpu = true }, false },
	{ "alloc", { .alloc_every = 512 * 1024 }, false },
	{ "all", { 0 }, true },
};

struct check_ctx {
	const char *mode;
};

static void print_stats(void *ctx, const struct verifier_stats *st)
{
	const struct check_ctx *cc = ctx;

	if (!st->seen) {
		printf("%-8s %-10s %-8s %s\n", cc->mode, st->prog, "refused",
		       st->error[0] ? st->error : "(no verifier statistics)");
		return;
	}
	printf("%-8s %-10s %-8s insns %7u (%4.1f%%)  ", cc->mode, st->prog,
	       st->loaded ? "ok" : "refused", st->insns, 100.0 * st->insns / VERIFIER_INSN_LIMIT);
	/* 7.x verifiers give the largest frame only: no chain to add up. */
	if (st->stack_chain || !st->stack_max)
		printf("stack %3u of %u (%s)", st->stack_chain, VERIFIER_STACK_LIMIT,
		       st->stack[0] ? st->stack : "-");
	else
		printf("stack n/a (largest frame %u)", st->stack_max);
	printf("  states %u peak %u%s%s\n", st->states, st->peak_states,
	       st->loaded ? "" : "  ", st->loaded ? "" : st->error);
}

int check_cmd_run(const struct options *o, volatile sig_atomic_t *stop)
{
	int refused = 0;

	(void)stop;	/* one short read or load: nothing to interrupt */

	printf("kernel %s: BPF verifier limits %u instructions, %u bytes of stack\n",
	       verifier_kernel_release(), VERIFIER_INSN_LIMIT, VERIFIER_STACK_LIMIT);
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		struct collector_opts co = modes[i].co;
		struct check_ctx cc = { modes[i].name };
		char err[512];
		int rc;

		co.max_stacks = o->max_stacks;
		co.max_counts = o->max_counts;
		co.max_frames = o->max_frames;
		co.min_block_ns = o->min_block_ns;
		co.offcpu_rate = o->offcpu_rate;
		rc = modes[i].vmwatch ? vmwatch_check(print_stats, &cc, err, sizeof(err)) :
					collector_check(&co, print_stats, &cc, err, sizeof(err));
		if (rc) {
			refused++;
			printf("%-8s refused: %s\n", modes[i].name, err);
		}
	}
	printf("%d of %zu modes refused\n", refused, sizeof(modes) / sizeof(modes[0]));
	return refused ? 1 : 0;
}
