/* SPDX-License-Identifier: MIT */
/* The one hash table of user space: an open-addressing index that maps a
 * key to the number of an entry the caller keeps in its own storage.
 *
 * The index stores entry numbers only; the caller says how to hash a
 * stored entry (to grow) and whether an entry matches a key (to find).
 * Linear probing, at most half full, doubling as it grows.  Entries are
 * never removed one by one: a table that forgets entries clears the index
 * and adds back the ones it keeps.
 */
#ifndef LBP_HASHIDX_H
#define LBP_HASHIDX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HASHIDX_NONE	UINT32_MAX

struct hashidx {
	uint32_t *slots;	/* entry number + 1; 0 is an empty slot */
	size_t nslots;		/* 0 or a power of two */
	size_t n;		/* entries indexed */
};

#define HASHIDX_INIT { NULL, 0, 0 }

struct hashidx_ops {
	uint64_t (*hash)(const void *ctx, uint32_t entry);
	bool (*match)(const void *ctx, uint32_t entry, const void *key);
};

/* Finds the entry matching key, whose hash is h, or returns HASHIDX_NONE
 * and sets *hint to where hashidx_add puts it.  Makes room for one more
 * entry first, so that the hint stays valid until the next call. */
uint32_t hashidx_find(struct hashidx *t, const struct hashidx_ops *ops, const void *ctx,
		      uint64_t h, const void *key, size_t *hint);

/* Finds the entry matching key without making room: for readers that
 * never add (const tables).  HASHIDX_NONE when absent. */
uint32_t hashidx_get(const struct hashidx *t, const struct hashidx_ops *ops, const void *ctx,
		     uint64_t h, const void *key);

/* Indexes entry at the hint of the hashidx_find that did not find it. */
void hashidx_add(struct hashidx *t, size_t hint, uint32_t entry);

/* Indexes entry with hash h without looking for it first (rebuilding). */
void hashidx_put(struct hashidx *t, const struct hashidx_ops *ops, const void *ctx,
		 uint64_t h, uint32_t entry);

/* Forgets every entry and keeps the memory. */
void hashidx_clear(struct hashidx *t);

void hashidx_free(struct hashidx *t);

#endif
