// SPDX-License-Identifier: MIT
/* The one hash table of user space (see hashidx.h). */
#include "base/hashidx.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

#define MIN_SLOTS	64

/* Doubles the slots and puts every entry back by its hash. */
static void grow(struct hashidx *t, const struct hashidx_ops *ops, const void *ctx)
{
	size_t nslots = t->nslots ? t->nslots * 2 : MIN_SLOTS;
	uint32_t *slots = xcalloc(nslots, sizeof(*slots));

	for (size_t i = 0; i < t->nslots; i++) {
		uint32_t e = t->slots[i];
		size_t j;

		if (!e)
			continue;
		j = ops->hash(ctx, e - 1) & (nslots - 1);
		while (slots[j])
			j = (j + 1) & (nslots - 1);
		slots[j] = e;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = nslots;
}

uint32_t hashidx_find(struct hashidx *t, const struct hashidx_ops *ops, const void *ctx,
		      uint64_t h, const void *key, size_t *hint)
{
	size_t j;

	if ((t->n + 1) * 2 > t->nslots)
		grow(t, ops, ctx);
	for (j = h & (t->nslots - 1); t->slots[j]; j = (j + 1) & (t->nslots - 1))
		if (ops->match(ctx, t->slots[j] - 1, key))
			return t->slots[j] - 1;
	*hint = j;
	return HASHIDX_NONE;
}

uint32_t hashidx_get(const struct hashidx *t, const struct hashidx_ops *ops, const void *ctx,
		     uint64_t h, const void *key)
{
	if (!t->nslots)
		return HASHIDX_NONE;
	for (size_t j = h & (t->nslots - 1); t->slots[j]; j = (j + 1) & (t->nslots - 1))
		if (ops->match(ctx, t->slots[j] - 1, key))
			return t->slots[j] - 1;
	return HASHIDX_NONE;
}

void hashidx_add(struct hashidx *t, size_t hint, uint32_t entry)
{
	t->slots[hint] = entry + 1;
	t->n++;
}

void hashidx_put(struct hashidx *t, const struct hashidx_ops *ops, const void *ctx,
		 uint64_t h, uint32_t entry)
{
	size_t j;

	if ((t->n + 1) * 2 > t->nslots)
		grow(t, ops, ctx);
	for (j = h & (t->nslots - 1); t->slots[j]; j = (j + 1) & (t->nslots - 1))
		;
	hashidx_add(t, j, entry);
}

void hashidx_clear(struct hashidx *t)
{
	if (t->slots)
		memset(t->slots, 0, t->nslots * sizeof(*t->slots));
	t->n = 0;
}

void hashidx_free(struct hashidx *t)
{
	free(t->slots);
	*t = (struct hashidx)HASHIDX_INIT;
}
