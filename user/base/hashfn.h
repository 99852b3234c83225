/* SPDX-License-Identifier: MIT */
/* Small non-cryptographic hashes shared by the user-space tables. */
#ifndef LBP_HASHFN_H
#define LBP_HASHFN_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t hash_bytes(const void *data, size_t n, uint64_t h)
{
	const unsigned char *p = data;

	/* FNV-1a: fine for short keys; tables resolve collisions. */
	if (!h)
		h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static inline uint64_t hash_u64(uint64_t x, uint64_t h)
{
	return hash_bytes(&x, sizeof(x), h);
}

#endif
