// SPDX-License-Identifier: MIT
/* hashidx over a caller's array: finds what was added, never what was not,
 * survives growth and colliding hashes, and forgets on clear. */
#include <stdio.h>
#include <string.h>

#include "base/hashidx.h"
#include "base/hashfn.h"
#include "base/unit.h"

#define N 5000

static uint64_t keys[N];
static bool collide;	/* every hash the same: probing must still work */

static uint64_t key_hash(uint64_t k)
{
	return collide ? 7 : hash_u64(k, 0);
}

static uint64_t entry_hash(const void *ctx, uint32_t e)
{
	return key_hash(((const uint64_t *)ctx)[e]);
}

static bool entry_match(const void *ctx, uint32_t e, const void *key)
{
	return ((const uint64_t *)ctx)[e] == *(const uint64_t *)key;
}

static const struct hashidx_ops ops = { entry_hash, entry_match };

static void fill_and_check(int n, const char *what)
{
	struct hashidx t = HASHIDX_INIT;
	size_t hint = 0;
	int added = 0, found = 0, misses = 0;
	char name[128];

	for (int i = 0; i < n; i++) {
		uint64_t k = 1000003ull * (uint64_t)i + 17;

		if (hashidx_find(&t, &ops, keys, key_hash(k), &k, &hint) == HASHIDX_NONE) {
			keys[i] = k;
			hashidx_add(&t, hint, (uint32_t)i);
			added++;
		}
	}
	for (int i = 0; i < n; i++) {
		uint64_t k = keys[i], other = k + 1;

		found += hashidx_find(&t, &ops, keys, key_hash(k), &k, &hint) == (uint32_t)i;
		misses += hashidx_find(&t, &ops, keys, key_hash(other), &other, &hint) ==
			  HASHIDX_NONE;
	}
	snprintf(name, sizeof(name), "%s: %d distinct keys added", what, n);
	CHECK(name, added == n && t.n == (size_t)n);
	snprintf(name, sizeof(name), "%s: each found as its own entry", what);
	CHECK(name, found == n);
	snprintf(name, sizeof(name), "%s: absent keys not found", what);
	CHECK(name, misses == n);
	found = 0;
	for (int i = 0; i < n; i++) {
		uint64_t other = keys[i] + 1;

		found += hashidx_get(&t, &ops, keys, key_hash(keys[i]), &keys[i]) == (uint32_t)i &&
			 hashidx_get(&t, &ops, keys, key_hash(other), &other) == HASHIDX_NONE;
	}
	snprintf(name, sizeof(name), "%s: get finds the same without growing", what);
	CHECK(name, found == n);
		snprintf(name, sizeof(name), "%s: at most half full", what);
	CHECK(name, t.n * 2 <= t.nslots);

	hashidx_clear(&t);
	snprintf(name, sizeof(name), "%s: clear forgets every entry", what);
	CHECK(name, t.n == 0 && hashidx_find(&t, &ops, keys, key_hash(keys[0]), &keys[0],
					     &hint) == HASHIDX_NONE);
	for (int i = 0; i < n; i += 2)
		hashidx_put(&t, &ops, keys, key_hash(keys[i]), (uint32_t)i);
	found = 0;
	for (int i = 0; i < n; i++)
		found += (hashidx_find(&t, &ops, keys, key_hash(keys[i]), &keys[i], &hint) ==
			  (uint32_t)i) == !(i & 1);
	snprintf(name, sizeof(name), "%s: put back half, only that half found", what);
	CHECK(name, found == n);
	hashidx_free(&t);
}

int main(void)
{
	fill_and_check(N, "spread hashes");
	collide = true;
	fill_and_check(300, "one hash for all");
	UNIT_EXIT();
}
