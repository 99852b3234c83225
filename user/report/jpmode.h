/* SPDX-License-Identifier: MIT */
/* The luajit -jp mode string, parsed as jit/p.lua's prof_start does
 * (jit/p.lua prof_start), with every derived setting spelled out. */
#ifndef LBP_JPMODE_H
#define LBP_JPMODE_H

#include <stdbool.h>
#include <stddef.h>

/* prof_split values: how the two key levels are formed. */
enum jp_split {
	JP_SPLIT_NONE = 0,	/* stack key, then the state key (if any) */
	JP_SPLIT_STATE = 1,	/* state key first, stack key nested ("vf") */
	JP_SPLIT_STACK = 2,	/* 's': split the stack after its first level */
	JP_SPLIT_LINE = 3,	/* "fl": function, then its current line */
};

#define JP_ANN_NONE	(-1)	/* not annotating */

struct jp_mode {
	char scope;		/* 'f', 'F', 'l' or 0 (states only) */
	char user_scope;	/* the f/F/l letter given, 0 if none */
	char states;		/* 0, 'v' (VM states), 'z' (zones) or 'g' (--group's keys) */
	bool has_fmt;		/* false: no stack key (jit.p prof_fmt=false) */
	char fmt[16];		/* dumpstack format of the stack key */
	int depth;		/* dumpstack depth; < 0 is caller first */
	enum jp_split split;
	bool raw;		/* 'r': counts instead of percentages */
	bool graph;		/* 'G': "key count" lines, no threshold */
	bool full_path;		/* 'p' */
	int min;		/* percentage threshold (m<N>, default 3) */
	int ann;		/* JP_ANN_NONE, 0 ('A': whole files), 3 ('a') */
	unsigned interval_ms;	/* i<N>, 0 when absent */
	/* Not set by the parser: split the J state into its phases and N
	 * into traces (the CLI's --vmstate-detail). */
	bool vmstate_detail;
};

/* Parses mode (NULL or "" means jit.p's default "f").  Returns 0, or -1
 * with a one-line message in err. */
int jp_mode_parse(const char *mode, struct jp_mode *out, char *err, size_t errlen);

#endif
