// SPDX-License-Identifier: MIT
/* Unit tests for reading the verifier's log: statistics, the line that
 * says why a program was refused, and the deepest call chain's stack. */
#include <stdbool.h>

#include "base/unit.h"
#include "sample/verifier.h"

/* As 6.1 writes it when it accepts a program with two subprograms. */
static const char *const accepted =
	"verification time 31250 usec\n"
	"stack depth 72+144+176\n"
	"processed 73457 insns (limit 1000000) max_states_per_insn 12 total_states 2157 "
	"peak_states 1415 mark_read 300\n";

/* As 6.1 wrote it for the sampler of issue 25, and 6.12 for its size. */
static const char *const refused_stack =
	"combined stack size of 2 calls is 576. Too large\n"
	"verification time 1042 usec\n"
	"stack depth 408+168\n"
	"processed 16427 insns (limit 1000000) max_states_per_insn 14 total_states 565 "
	"peak_states 459 mark_read 51\n";
static const char *const refused_size =
	"BPF program is too large. Processed 1000001 insn\n"
	"verification time 61000000 usec\n"
	"stack depth 424\n"
	"processed 1000001 insns (limit 1000000) max_states_per_insn 41 total_states 26169 "
	"peak_states 2354 mark_read 0\n";

static void test_parse(void)
{
	struct verifier_stats st;

	verifier_parse(accepted, &st);
	CHECK("accepted: statistics seen", st.seen);
	CHECK("accepted: instructions", st.insns == 73457);
	CHECK("accepted: states", st.states == 2157 && st.peak_states == 1415);
	CHECK("accepted: stack summed", st.stack_sum == 72 + 144 + 176);
	CHECK("accepted: largest frame", st.stack_max == 176);
	CHECK_STR("accepted: stack as written", st.stack, "72+144+176");
	CHECK_STR("accepted: no error", st.error, "");

	verifier_parse(refused_stack, &st);
	CHECK_STR("refused: the reason, not the statistics", st.error,
		  "combined stack size of 2 calls is 576. Too large");
	verifier_parse(refused_size, &st);
	CHECK_STR("too large: the reason", st.error,
		  "BPF program is too large. Processed 1000001 insn");
	CHECK("too large: instructions", st.insns == 1000001);

	verifier_parse("stack depth max 176\nprocessed 68429 insns (limit 1000000)\n", &st);
	CHECK("7.x: the largest frame only, no sum", st.stack_max == 176 && st.stack_sum == 0);

	verifier_parse("", &st);
	CHECK("empty log: nothing seen", !st.seen && !st.error[0] && !st.insns);
	verifier_parse("R2 min value is negative, either use unsigned or 'var &= const'", &st);
	CHECK_STR("no newline at the end", st.error,
		  "R2 min value is negative, either use unsigned or 'var &= const'");
}

static void test_chain(void)
{
	bool call[VERIFIER_MAX_SUBPROGS][VERIFIER_MAX_SUBPROGS] = { { false } };
	unsigned depth[4] = { 72, 144, 80, 176 };

	/* main -> 1 -> (nothing); main -> 2 -> 3: frames rounded up to 32. */
	call[0][1] = call[0][2] = call[2][3] = true;
	CHECK("chain: the deepest path, each frame rounded up",
	      verifier_chain_depth(4, depth, (const bool (*)[VERIFIER_MAX_SUBPROGS])call) ==
		      96 + 96 + 192);
	call[1][3] = true;
	CHECK("chain: a deeper path wins",
	      verifier_chain_depth(4, depth, (const bool (*)[VERIFIER_MAX_SUBPROGS])call) ==
		      96 + 160 + 192);
	depth[0] = 0;
	CHECK("chain: an empty frame counts 32",
	      verifier_chain_depth(1, depth, (const bool (*)[VERIFIER_MAX_SUBPROGS])call) == 32);
	call[3][0] = true;	/* a cycle: bounded, not endless */
	CHECK("chain: a cycle ends", verifier_chain_depth(4, depth,
			(const bool (*)[VERIFIER_MAX_SUBPROGS])call) > 0);
}

int main(void)
{
	test_parse();
	test_chain();
	UNIT_EXIT();
}
