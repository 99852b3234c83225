// SPDX-License-Identifier: MIT
/* Breadth-first attribution of heap objects to paths (see heap_paths.h). */
#include "model/heap_paths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashfn.h"
#include "base/xalloc.h"
#include "model/heap_census.h"
#include "heap/heap_mem.h"
#include "heap/heap_refs.h"
#include "heap/heap_stack.h"
#include "heap/heap_walk.h"
#include "luajit/layout.h"

#define LABEL_MAX	96

/* -- Interned paths -------------------------------------------------------- */

struct path_key {
	uint32_t parent;
	const char *label;
};

static uint64_t path_hash(uint32_t parent, const char *label)
{
	return hash_bytes(label, strlen(label), hash_u64(parent, 0));
}

static uint64_t entry_hash(const void *ctx, uint32_t e)
{
	const struct heap_paths *hp = ctx;

	return path_hash(hp->p[e].parent, hp->pool + hp->p[e].label);
}

static bool entry_match(const void *ctx, uint32_t e, const void *key)
{
	const struct heap_paths *hp = ctx;
	const struct path_key *k = key;

	return hp->p[e].parent == k->parent && !strcmp(hp->pool + hp->p[e].label, k->label);
}

static const struct hashidx_ops path_ops = { entry_hash, entry_match };

static uint32_t path_intern(struct heap_paths *hp, uint32_t parent, const char *label)
{
	struct path_key k = { parent, label };
	size_t hint, len = strlen(label) + 1;
	uint32_t i = hashidx_find(&hp->idx, &path_ops, hp, path_hash(parent, label), &k, &hint);
	struct heap_path *p;

	if (i != HASHIDX_NONE)
		return i;
	if (hp->n == hp->cap) {
		hp->cap = hp->cap ? 2 * hp->cap : 256;
		hp->p = xrealloc(hp->p, hp->cap * sizeof(*hp->p));
	}
	while (hp->pool_len + len > hp->pool_cap) {
		hp->pool_cap = hp->pool_cap ? 2 * hp->pool_cap : 4096;
		hp->pool = xrealloc(hp->pool, hp->pool_cap);
	}
	p = &hp->p[hp->n];
	memset(p, 0, sizeof(*p));
	p->parent = parent;
	p->depth = parent == HEAP_PATH_NONE ? 0 : hp->p[parent].depth + 1;
	p->other = HEAP_PATH_NONE;
	p->label = (uint32_t)hp->pool_len;
	memcpy(hp->pool + hp->pool_len, label, len);
	hp->pool_len += len;
	hashidx_add(&hp->idx, hint, (uint32_t)hp->n);
	return (uint32_t)hp->n++;
}

const char *heap_path_label(const struct heap_paths *hp, uint32_t path)
{
	return hp->pool + hp->p[path].label;
}

void heap_path_name(const struct heap_paths *hp, uint32_t path, const char *sep, char *buf,
		    size_t len)
{
	uint32_t chain[HEAP_PATH_MAX_DEPTH + 2];
	int n = 0;
	size_t at = 0;

	for (uint32_t p = path; p != HEAP_PATH_NONE && n < (int)(sizeof(chain) / sizeof(chain[0]));
	     p = hp->p[p].parent)
		chain[n++] = p;
	buf[0] = '\0';
	while (n-- > 0 && at < len) {
		int w = snprintf(buf + at, len - at, "%s%s", at ? sep : "",
				 heap_path_label(hp, chain[n]));

		if (w < 0)
			break;
		at += (size_t)w;
	}
}

/* Other paths reaching a path's objects: each distinct (path, other)
 * pair counted once. */
static uint64_t pair_hash(const void *ctx, uint32_t e)
{
	return hash_u64(((const struct heap_paths *)ctx)->other_pairs[e], 0);
}

static bool pair_match(const void *ctx, uint32_t e, const void *key)
{
	return ((const struct heap_paths *)ctx)->other_pairs[e] == *(const uint64_t *)key;
}

static const struct hashidx_ops pair_ops = { pair_hash, pair_match };

/* Whether anc is path or one of its ancestors. */
static bool under(const struct heap_paths *hp, uint32_t path, uint32_t anc)
{
	for (uint32_t p = path; p != HEAP_PATH_NONE; p = hp->p[p].parent)
		if (p == anc)
			return true;
	return false;
}

/* A path through the object itself (_G._G, a function's [env] under _G)
 * is a cycle, not another way to it. */
static void note_other(struct heap_paths *hp, uint32_t path, uint32_t other)
{
	uint64_t key = (uint64_t)path << 32 | other;
	size_t hint;

	if (under(hp, other, path) ||
	    hashidx_find(&hp->other_idx, &pair_ops, hp, hash_u64(key, 0), &key, &hint) != HASHIDX_NONE)
		return;
	if (hp->nother == hp->other_cap) {
		hp->other_cap = hp->other_cap ? 2 * hp->other_cap : 256;
		hp->other_pairs = xrealloc(hp->other_pairs, hp->other_cap * sizeof(*hp->other_pairs));
	}
	hp->other_pairs[hp->nother] = key;
	hashidx_add(&hp->other_idx, hint, (uint32_t)hp->nother++);
	if (!hp->p[path].others++)
		hp->p[path].other = other;
}

uint32_t heap_path_others(const struct heap_paths *hp, uint32_t path, char *buf, size_t len)
{
	uint32_t via = path, below[HEAP_PATH_MAX_DEPTH + 2];
	int n = 0;
	size_t at;

	buf[0] = '\0';
	/* The nearest path (this one or an ancestor) with others: its first
	 * other, then the elements from there down to path. */
	while (via != HEAP_PATH_NONE && !hp->p[via].others) {
		if (n < (int)(sizeof(below) / sizeof(below[0])))
			below[n++] = via;
		via = hp->p[via].parent;
	}
	if (via == HEAP_PATH_NONE)
		return 0;
	heap_path_name(hp, hp->p[via].other, "", buf, len);
	at = strlen(buf);
	while (n-- > 0 && at < len) {
		int w = snprintf(buf + at, len - at, "%s", heap_path_label(hp, below[n]));

		if (w < 0)
			break;
		at += (size_t)w;
	}
	return hp->p[via].others;
}

/* -- The walk -------------------------------------------------------------- */

/* Who reaches an object first, by tier: the globals and the registry, then
 * a named local of a thread's stack, then an anonymous slot.  Each tier's
 * queue is emptied before the next is looked at; an object reached from a
 * lower tier than it was is taken over by it (and traversed from there). */
enum { TIER_GLOBAL, TIER_LOCAL, TIER_SLOT, TIERS };
#define NAMED_SLOTS	65536	/* a thread's slots named at most */

struct bfs {
	const struct heap_snapshot *snap;
	struct heap_paths *hp;
	uint32_t *queue[TIERS];
	size_t head[TIERS], tail[TIERS];
	uint8_t *tier;		/* per object: the tier that reached it */
	uint32_t from;		/* the path of the object being traversed */
	uint8_t from_tier;
	char (*slots)[HEAP_SLOT_NAME];	/* the thread being traversed: names */
	size_t nslots;
};

static void reach(struct bfs *b, uint32_t obj, uint32_t path, uint8_t tier)
{
	b->hp->obj_path[obj] = path;
	b->tier[obj] = tier;
	b->queue[tier][b->tail[tier]++] = obj;
}

static void on_edge(void *ud, const struct heap_edge *e)
{
	struct bfs *b = ud;
	uint32_t obj = heap_snapshot_find(b->snap, e->child), path = b->from, cur;
	uint8_t tier = b->from_tier;
	char label[LABEL_MAX];

	if (obj == HASHIDX_NONE)
		return;
	if (e->kind == HE_STACK) {
		bool named = e->key < b->nslots && b->slots[e->key][0];

		if (tier < (named ? TIER_LOCAL : TIER_SLOT))
			tier = named ? TIER_LOCAL : TIER_SLOT;
		if (named)
			snprintf(label, sizeof(label), "[%.*s]", LABEL_MAX - 3, b->slots[e->key]);
		else
			snprintf(label, sizeof(label), "[stack]");
	} else if (e->kind != HE_VALUE) {
		heap_edge_label(&b->snap->ctx, e, label, sizeof(label));
	}
	if (e->kind != HE_VALUE && b->hp->p[b->from].depth < HEAP_PATH_MAX_DEPTH)
		path = path_intern(b->hp, b->from, label);
	cur = b->hp->obj_path[obj];
	if (cur == HEAP_PATH_NONE) {
		reach(b, obj, path, tier);
	} else if (tier < b->tier[obj]) {
		note_other(b->hp, path, cur);
		reach(b, obj, path, tier);
	} else {
		note_other(b->hp, cur, path);
	}
}

static void root(struct bfs *b, uint64_t addr, const char *label)
{
	uint32_t obj = heap_snapshot_find(b->snap, addr);

	if (obj != HASHIDX_NONE && b->hp->obj_path[obj] == HEAP_PATH_NONE)
		reach(b, obj, path_intern(b->hp, HEAP_PATH_NONE, label), TIER_GLOBAL);
}

static uint32_t traces_path(struct bfs *b)
{
	return path_intern(b->hp, HEAP_PATH_NONE, "[JIT traces]");
}

static void add_roots(struct bfs *b)
{
	const struct heap_ctx *c = &b->snap->ctx;
	const struct lj_layout *lay = c->lay;
	uint64_t mainth = heap_ref(c, c->g + lay->g_mainthref);
	uint64_t registry = 0;

	root(b, heap_ref(c, mainth + lay->L_env), "_G");
	registry = heap_tv_gcobj(c, heap_mem_uint(c->mem, c->g + lay->g_registrytv, 8));
	root(b, registry, "[registry]");
	root(b, mainth, "[main thread]");
	/* The JIT's traces: J->trace[] holds them, not a table (src/lj_gc.c
	 * gc_traverse_trace marks them from there). */
	for (uint32_t i = 0; i < b->snap->n; i++)
		if (b->snap->objs[i].type == HT_TRACE && b->hp->obj_path[i] == HEAP_PATH_NONE)
			reach(b, i, traces_path(b), TIER_GLOBAL);
}

/* What is not reached is said by kind, one path under the unreached line
 * each ("[not reached from the roots] [trace]"): the kinds tell a missing
 * root (traces, prototypes) from garbage the sweep has not freed yet. */
static uint32_t unreached_by_kind(const struct heap_snapshot *snap, struct heap_paths *hp,
				  uint32_t *kind_path, uint32_t i)
{
	enum heap_kind k = heap_kind_of(snap, i);
	char label[48];

	if (k >= HK_NKINDS)
		return hp->unreached;
	if (kind_path[k] == HEAP_PATH_NONE) {
		snprintf(label, sizeof(label), "[%s]", heap_kind_name(k));
		kind_path[k] = path_intern(hp, hp->unreached, label);
	}
	return kind_path[k];
}

static void tally(const struct heap_snapshot *snap, struct heap_paths *hp)
{
	uint32_t kind_path[HK_NKINDS];

	for (int k = 0; k < HK_NKINDS; k++)
		kind_path[k] = HEAP_PATH_NONE;
	for (uint32_t i = 0; i < snap->n; i++) {
		uint32_t p = hp->obj_path[i] == HEAP_PATH_NONE ?
			     unreached_by_kind(snap, hp, kind_path, i) : hp->obj_path[i];

		hp->p[p].self_bytes += heap_obj_bytes(snap, i);
		hp->p[p].self_count++;
	}
	for (size_t i = 0; i < hp->n; i++) {
		hp->p[i].held_bytes = hp->p[i].self_bytes;
		hp->p[i].held_count = hp->p[i].self_count;
	}
	/* A child is always interned after its parent. */
	for (size_t i = hp->n; i-- > 0;) {
		uint32_t parent = hp->p[i].parent;

		if (parent != HEAP_PATH_NONE) {
			hp->p[parent].held_bytes += hp->p[i].held_bytes;
			hp->p[parent].held_count += hp->p[i].held_count;
		}
	}
}

/* The references out of obj; a thread's stack slots named first. */
static void traverse(struct bfs *b, uint32_t obj)
{
	const struct heap_obj *o = &b->snap->objs[obj];

	b->from = b->hp->obj_path[obj];
	b->from_tier = b->tier[obj];
	b->nslots = 0;
	if (o->type == HT_THREAD) {
		size_t n = o->bytes_a / 8 < NAMED_SLOTS ? o->bytes_a / 8 : NAMED_SLOTS;

		free(b->slots);
		b->slots = n ? malloc(n * sizeof(*b->slots)) : NULL;
		if (b->slots) {
			heap_stack_names(&b->snap->ctx, o->addr, b->slots, n);
			b->nslots = n;
		}
	}
	heap_refs(&b->snap->ctx, o, on_edge, b);
}

int heap_paths_build(const struct heap_snapshot *snap, struct heap_paths *hp)
{
	struct bfs b = { .snap = snap, .hp = hp };
	bool ok = true;

	memset(hp, 0, sizeof(*hp));
	hp->obj_path = malloc((snap->n + 1) * sizeof(*hp->obj_path));
	b.tier = malloc(snap->n + 1);
	for (int t = 0; t < TIERS; t++)
		ok &= (b.queue[t] = malloc((snap->n + 1) * sizeof(*b.queue[t]))) != NULL;
	if (!hp->obj_path || !b.tier || !ok) {
		for (int t = 0; t < TIERS; t++)
			free(b.queue[t]);
		free(b.tier);
		heap_paths_free(hp);
		return -1;
	}
	memset(hp->obj_path, 0xff, (snap->n + 1) * sizeof(*hp->obj_path));
	hp->unreached = path_intern(hp, HEAP_PATH_NONE, "[not reached from the roots]");
	add_roots(&b);
	for (int t = 0; t < TIERS; t++) {
		while (b.head[t] < b.tail[t]) {
			uint32_t obj = b.queue[t][b.head[t]++];

			if (b.tier[obj] == t)	/* else taken over by a lower tier */
				traverse(&b, obj);
		}
	}
	for (int t = 0; t < TIERS; t++)
		free(b.queue[t]);
	free(b.tier);
	free(b.slots);
	tally(snap, hp);
	return 0;
}

void heap_paths_free(struct heap_paths *hp)
{
	free(hp->p);
	free(hp->pool);
	free(hp->obj_path);
	free(hp->other_pairs);
	hashidx_free(&hp->idx);
	hashidx_free(&hp->other_idx);
	memset(hp, 0, sizeof(*hp));
}
