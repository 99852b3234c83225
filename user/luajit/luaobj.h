/* SPDX-License-Identifier: MIT */
/* Reading LuaJIT values (TValues, strings, tables) out of target memory. */
#ifndef LBP_LUAOBJ_H
#define LBP_LUAOBJ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lj_layout;
struct mem_reader;

#include "lj_consts.h"

/* Type tag and GC pointer of a raw 8-byte TValue. */
uint32_t lj_tv_itype(const struct lj_layout *lay, uint64_t tv);

/* A number's value: a double (any tag below LJ_TNUMX), or the 32-bit
 * integer a dual-number build (arm64: src/lj_arch.h LJ_NUMMODE_DUAL)
 * tags LJ_TISNUM, which is LJ_TNUMX there and which no other build
 * stores (src/lj_obj.h setintV).  false: not a number. */
bool lj_tv_number(const struct lj_layout *lay, uint64_t tv, double *d);
uint64_t lj_tv_gcptr(const struct lj_layout *lay, uint64_t tv);

/* Copies a GCstr's bytes (NUL-terminated, truncated to max-1 bytes). */
int lj_read_str(struct mem_reader *m, const struct lj_layout *lay, uint64_t str,
		char *buf, size_t max);

/* Looks up t[key] for a string key by scanning the hash part (the string
 * hash is seeded per process, so it cannot be recomputed).  Stores the
 * value TValue; -1 when absent or unreadable. */
int lj_tab_getstr(struct mem_reader *m, const struct lj_layout *lay, uint64_t tab,
		  const char *key, uint64_t *tv);

#endif
