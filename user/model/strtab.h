/* SPDX-License-Identifier: MIT */
/* Interned strings for profiles read back from files: an id per distinct
 * byte string, id 0 always "".  Each string is a NUL-terminated copy. */
#ifndef LBP_STRTAB_H
#define LBP_STRTAB_H

#include <stdint.h>
#include <stddef.h>

#include "base/hashidx.h"

struct strtab {
	char **s;
	uint32_t *len;
	uint32_t n, cap;
	struct hashidx idx;
};

#define STRTAB_INIT { NULL, NULL, 0, 0, HASHIDX_INIT }

/* The id of s[0..n), added when new. */
uint32_t strtab_intern(struct strtab *t, const char *s, size_t n);
/* Looks only; UINT32_MAX when absent. */
uint32_t strtab_find(const struct strtab *t, const char *s, size_t n);
const char *strtab_str(const struct strtab *t, uint32_t id);
void strtab_free(struct strtab *t);

#endif
