// SPDX-License-Identifier: MIT
/* Interned strings (see strtab.h). */
#include "model/strtab.h"

#include <stdlib.h>
#include <string.h>

#include "base/hashfn.h"
#include "base/xalloc.h"

struct strkey {
	const char *s;
	size_t n;
};

static uint64_t hash_entry(const void *ctx, uint32_t e)
{
	const struct strtab *t = ctx;

	return hash_bytes(t->s[e], t->len[e], 0);
}

static bool match_entry(const void *ctx, uint32_t e, const void *key)
{
	const struct strtab *t = ctx;
	const struct strkey *k = key;

	return t->len[e] == k->n && !memcmp(t->s[e], k->s, k->n);
}

static const struct hashidx_ops ops = { hash_entry, match_entry };

uint32_t strtab_intern(struct strtab *t, const char *s, size_t n)
{
	struct strkey k = { s, n };
	size_t hint;
	uint32_t id;

	if (!t->n) {
		if (!t->cap) {
			t->cap = 64;
			t->s = xcalloc(t->cap, sizeof(*t->s));
			t->len = xcalloc(t->cap, sizeof(*t->len));
		}
		t->s[0] = xstrdup("");
		t->len[0] = 0;
		t->n = 1;
		hashidx_put(&t->idx, &ops, t, hash_bytes("", 0, 0), 0);
	}
	id = hashidx_find(&t->idx, &ops, t, hash_bytes(s, n, 0), &k, &hint);
	if (id != HASHIDX_NONE)
		return id;
	if (t->n == t->cap) {
		t->cap *= 2;
		t->s = xrealloc(t->s, t->cap * sizeof(*t->s));
		t->len = xrealloc(t->len, t->cap * sizeof(*t->len));
	}
	id = t->n++;
	t->s[id] = xmalloc(n + 1);
	memcpy(t->s[id], s, n);
	t->s[id][n] = '\0';
	t->len[id] = (uint32_t)n;
	hashidx_add(&t->idx, hint, id);
	return id;
}

uint32_t strtab_find(const struct strtab *t, const char *s, size_t n)
{
	struct strkey k = { s, n };

	if (!t->n)
		return UINT32_MAX;
	return hashidx_get(&t->idx, &ops, t, hash_bytes(s, n, 0), &k);
}

const char *strtab_str(const struct strtab *t, uint32_t id)
{
	return id < t->n ? t->s[id] : "";
}

void strtab_free(struct strtab *t)
{
	for (uint32_t i = 0; i < t->n; i++)
		free(t->s[i]);
	free(t->s);
	free(t->len);
	hashidx_free(&t->idx);
	memset(t, 0, sizeof(*t));
}
