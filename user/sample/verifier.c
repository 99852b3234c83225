// SPDX-License-Identifier: MIT
/* The verifier's log of each program: statistics and refusals. */
#include "sample/verifier.h"

#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

/* Errors and statistics are a few lines, but the verifier counts what it
 * wrote and took back on paths that failed (bpf_vlog_reset): a buffer
 * smaller than that high-water mark fails the load with ENOSPC.  Pages
 * are only touched as the log is written. */
#define STATS_LOG_BYTES	(16u << 20)
#define FULL_LOG_BYTES	(256u << 20)	/* -v: the instruction trace too */
#define MAX_PROGS	16

struct verifier_log {
	int n;
	struct bpf_program *prog[MAX_PROGS];
	char *buf[MAX_PROGS];
};

/* ------------------------------------------------------------------------ */
/* Parsing */

static bool starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* "stack depth 48+0+120": each subprogram's bytes, in order.  Newer
 * verifiers (7.x) give only the largest frame, as some text and a number:
 * then no chain can be computed (stack_sum stays 0). */
static void parse_stack(const char *s, struct verifier_stats *out)
{
	const char *p = s;

	if (*p < '0' || *p > '9') {
		snprintf(out->stack, sizeof(out->stack), "%.*s", (int)strcspn(s, "\n"), s);
		out->stack_sum = 0;
		p += strcspn(p, "0123456789\n");
		out->stack_max = *p >= '0' && *p <= '9' ? (unsigned)strtoul(p, NULL, 10) : 0;
		return;
	}

	snprintf(out->stack, sizeof(out->stack), "%.*s", (int)strcspn(s, "\n"), s);
	out->stack_sum = out->stack_max = 0;
	while (*p >= '0' && *p <= '9') {
		unsigned long v = strtoul(p, (char **)&p, 10);

		out->stack_sum += (unsigned)v;
		if (v > out->stack_max)
			out->stack_max = (unsigned)v;
		if (*p != '+')
			break;
		p++;
	}
}

/* A line that is statistics, not a reason. */
static bool is_stats_line(const char *line, size_t len)
{
	return len == 0 || starts_with(line, "verification time") ||
	       starts_with(line, "stack depth") || starts_with(line, "processed ") ||
	       starts_with(line, "func#") || starts_with(line, "Func#") ||
	       starts_with(line, "Validating ");
}

void verifier_parse(const char *log, struct verifier_stats *out)
{
	const char *line = log;

	out->seen = false;
	out->insns = out->states = out->peak_states = 0;
	out->stack_sum = out->stack_max = 0;
	out->stack[0] = out->error[0] = '\0';
	while (line && *line) {
		size_t len = strcspn(line, "\n");
		const char *p;

		if (starts_with(line, "processed ")) {
			out->seen = true;
			out->insns = (unsigned)strtoul(line + 10, NULL, 10);
			if ((p = strstr(line, "total_states ")) && p < line + len)
				out->states = (unsigned)strtoul(p + 13, NULL, 10);
			if ((p = strstr(line, "peak_states ")) && p < line + len)
				out->peak_states = (unsigned)strtoul(p + 12, NULL, 10);
		} else if (starts_with(line, "stack depth ")) {
			parse_stack(line + 12, out);
		} else if (!out->error[0] && !is_stats_line(line, len)) {
			snprintf(out->error, sizeof(out->error), "%.*s", (int)len, line);
		}
		line = line[len] ? line + len + 1 : NULL;
	}
}

/* ------------------------------------------------------------------------ */
/* The deepest call chain */

static unsigned frame_bytes(unsigned depth)
{
	return ((depth ? depth : 1) + 31) / 32 * 32;	/* kernel/bpf/verifier.c */
}

static unsigned chain_from(int i, int n, const unsigned *depth,
			   const bool call[][VERIFIER_MAX_SUBPROGS], int level)
{
	unsigned deepest = 0;

	if (level > VERIFIER_MAX_SUBPROGS)
		return 0;	/* a cycle: the verifier refuses recursion anyway */
	for (int j = 0; j < n; j++) {
		unsigned d;

		if (!call[i][j])
			continue;
		d = chain_from(j, n, depth, call, level + 1);
		if (d > deepest)
			deepest = d;
	}
	return frame_bytes(depth[i]) + deepest;
}

unsigned verifier_chain_depth(int n, const unsigned *depth,
			      const bool call[][VERIFIER_MAX_SUBPROGS])
{
	return n > 0 ? chain_from(0, n, depth, call, 0) : 0;
}

static int index_of(const int *start, int n, int at)
{
	for (int k = n - 1; k >= 0; k--)
		if (at >= start[k])
			return k;
	return 0;
}

/* The chain from the instructions as loaded: subprograms start at 0 and
 * at every target of a bpf-to-bpf call or of a callback's address, as the
 * verifier finds them (check_subprogs). */
static unsigned chain_of(const struct bpf_program *prog, const char *stack)
{
	const struct bpf_insn *in = bpf_program__insns(prog);
	int cnt = (int)bpf_program__insn_cnt(prog), start[VERIFIER_MAX_SUBPROGS] = { 0 }, n = 1;
	bool call[VERIFIER_MAX_SUBPROGS][VERIFIER_MAX_SUBPROGS] = { { false } };
	unsigned depth[VERIFIER_MAX_SUBPROGS] = { 0 };
	const char *p = stack;
	int nd = 0;

	while (nd < VERIFIER_MAX_SUBPROGS && *p >= '0' && *p <= '9') {
		depth[nd++] = (unsigned)strtoul(p, (char **)&p, 10);
		if (*p++ != '+')
			break;
	}
	for (int i = 0; in && i < cnt; i++) {
		bool is_call = in[i].code == (BPF_JMP | BPF_CALL) && in[i].src_reg == BPF_PSEUDO_CALL;
		bool is_func = in[i].code == (BPF_LD | BPF_IMM | BPF_DW) &&
			       in[i].src_reg == BPF_PSEUDO_FUNC;
		int target = i + in[i].imm + 1, k;

		if (!is_call && !is_func)
			continue;
		for (k = 0; k < n && start[k] != target; k++)
			;
		if (k == n && n < VERIFIER_MAX_SUBPROGS)
			start[n++] = target;
	}
	for (int a = 1; a < n; a++)	/* ascending: the verifier's numbering */
		for (int b = a; b > 0 && start[b] < start[b - 1]; b--) {
			int t = start[b];

			start[b] = start[b - 1];
			start[b - 1] = t;
		}
	if (n != nd)
		return 0;	/* not the subprograms the verifier counted */
	for (int i = 0; in && i < cnt; i++) {
		bool is_call = in[i].code == (BPF_JMP | BPF_CALL) && in[i].src_reg == BPF_PSEUDO_CALL;
		bool is_func = in[i].code == (BPF_LD | BPF_IMM | BPF_DW) &&
			       in[i].src_reg == BPF_PSEUDO_FUNC;

		if (is_call || is_func)
			call[index_of(start, n, i)][index_of(start, n, i + in[i].imm + 1)] = true;
	}
	return verifier_chain_depth(n, depth, (const bool (*)[VERIFIER_MAX_SUBPROGS])call);
}

/* ------------------------------------------------------------------------ */
/* Per object */

struct verifier_log *verifier_log_attach(struct bpf_object *obj, bool verbose)
{
	struct verifier_log *v = calloc(1, sizeof(*v));
	size_t size = verbose ? FULL_LOG_BYTES : STATS_LOG_BYTES;
	struct bpf_program *prog;

	if (!v)
		return NULL;
	bpf_object__for_each_program(prog, obj) {
		if (!bpf_program__autoload(prog) || v->n == MAX_PROGS)
			continue;
		v->buf[v->n] = calloc(1, size);
		if (!v->buf[v->n])
			break;
		bpf_program__set_log_buf(prog, v->buf[v->n], size);
		bpf_program__set_log_level(prog, verbose ? 1 | 4 : 4);
		v->prog[v->n++] = prog;
	}
	return v;
}

int verifier_log_count(const struct verifier_log *v)
{
	return v ? v->n : 0;
}

void verifier_log_stats(const struct verifier_log *v, int i, struct verifier_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (!v || i < 0 || i >= v->n)
		return;
	verifier_parse(v->buf[i], out);
	out->prog = bpf_program__name(v->prog[i]);
	out->loaded = bpf_program__fd(v->prog[i]) >= 0;
	out->stack_chain = out->stack_sum ? chain_of(v->prog[i], out->stack) : 0;
	if (!out->stack_chain)
		out->stack_chain = out->stack_sum;
}

bool verifier_log_refusal(const struct verifier_log *v, char *buf, size_t len)
{
	struct verifier_stats st;

	for (int i = 0; v && i < v->n; i++) {
		verifier_log_stats(v, i, &st);
		if (st.loaded || !st.error[0])
			continue;
		snprintf(buf, len, "%s: %s", st.prog, st.error);
		return true;
	}
	return false;
}

void verifier_log_free(struct verifier_log *v)
{
	if (!v)
		return;
	/* libbpf reads a program's log buffer during the load only. */
	for (int i = 0; i < v->n; i++)
		free(v->buf[i]);
	free(v);
}

const char *verifier_kernel_release(void)
{
	static struct utsname u;

	if (!u.release[0] && uname(&u))
		snprintf(u.release, sizeof(u.release), "unknown");
	return u.release;
}
