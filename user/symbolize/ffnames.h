/* SPDX-License-Identifier: MIT */
/* Built-in fast-function names per LuaJIT family (upstream, OpenResty),
 * each with and without the JIT compiled in. */
#ifndef LBP_FFNAMES_H
#define LBP_FFNAMES_H

struct lj_layout;

enum fft_table {
	FFT_UPSTREAM, FFT_UPSTREAM_NOJIT, FFT_OPENRESTY, FFT_OPENRESTY_NOJIT, FFT_N
};

/* "string.gsub" for the ffid of string.gsub in table t, or NULL for ids
 * that are not fast functions there. */
const char *ffnames_table(enum fft_table t, int ffid);

/* Entries in table t, [0] "Lua" and [1] "C" included. */
int ffnames_table_count(enum fft_table t);

/* The table of lay's family with the JIT (the usual build). */
enum fft_table ffnames_default(const struct lj_layout *lay);

/* The same family's table without the JIT. */
enum fft_table ffnames_nojit(enum fft_table t);

#endif
