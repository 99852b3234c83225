/* SPDX-License-Identifier: MIT */
/* What the kernel's BPF verifier said about each program of an object:
 * its statistics when it accepted it (instructions processed, stack per
 * subprogram, states), the line that matters when it refused it.
 *
 * The verifier's log at level 4 (BPF_LOG_STATS) holds its error messages
 * and its statistics but not the instruction trace, so it stays small
 * whatever the program, and is asked for on every load: a refusal can
 * then always be told in one line, without loading again. */
#ifndef LBP_VERIFIER_H
#define LBP_VERIFIER_H

#include <stdbool.h>
#include <stddef.h>

struct bpf_object;
struct verifier_log;

#define VERIFIER_INSN_LIMIT	1000000u	/* instructions one load may process */
#define VERIFIER_STACK_LIMIT	512u		/* bytes of stack one call chain may use */

struct verifier_stats {
	const char *prog;	/* the program's name, owned by the object */
	bool loaded;		/* the load succeeded */
	bool seen;		/* the log held statistics */
	unsigned insns;		/* instructions processed */
	unsigned states, peak_states;
	unsigned stack_sum;	/* bytes of stack of every subprogram, added up */
	unsigned stack_max;	/* the largest subprogram's */
	/* The deepest call chain's stack as the verifier adds it up (each
	 * frame rounded up to 32 bytes), from the loaded instructions; the
	 * sum of all when they are not at hand; 0 when the verifier gave only
	 * its largest frame (stack_max). */
	unsigned stack_chain;
	char stack[96];		/* as the verifier wrote it: "48+0+120" */
	char error[256];	/* the first line that says why, or "" */
};

/* Hands one program's statistics to a caller. */
typedef void (*verifier_fn)(void *ctx, const struct verifier_stats *st);

/* Gives every program obj will load a log buffer; verbose: the whole
 * instruction trace as well (level 1 | 4), which libbpf prints when the
 * load fails.  NULL when out of memory (loading then goes on without). */
struct verifier_log *verifier_log_attach(struct bpf_object *obj, bool verbose);

/* After bpf_object__load: the programs it was to load, in order. */
int verifier_log_count(const struct verifier_log *v);
void verifier_log_stats(const struct verifier_log *v, int i, struct verifier_stats *out);

/* After a failed load: the first program the verifier refused, in one
 * line ("on_sample: R2 min value is negative, ..."), into buf; false when
 * no log names one (a failure that is not the verifier's). */
bool verifier_log_refusal(const struct verifier_log *v, char *buf, size_t len);

void verifier_log_free(struct verifier_log *v);

/* The running kernel's release ("6.1.0-56-amd64"), for messages. */
const char *verifier_kernel_release(void);

/* Pure logic, for the unit test: the statistics and the first error line
 * of one program's log text; the deepest chain's stack of a program whose
 * subprograms start at start[0..n) (ascending, start[0] = 0, as the
 * verifier numbers them) with depth[0..n) bytes each, where call[i][j]
 * says whether subprogram i calls j. */
void verifier_parse(const char *log, struct verifier_stats *out);
#define VERIFIER_MAX_SUBPROGS	32
unsigned verifier_chain_depth(int n, const unsigned *depth,
			      const bool call[][VERIFIER_MAX_SUBPROGS]);

#endif
