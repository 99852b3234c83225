/* Breadth-first attribution of heap objects to paths (see heap_paths.h). */
#include "model/heap_paths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashfn.h"
#include "base/xalloc.h"
#include "model/heap_census.h"
#include "target/heap_mem.h"
#include "target/heap_refs.h"
#include "target/heap_walk.h"
#include "target/layout.h"

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

/* -- The breadth-first walk ------------------------------------------------ */

struct bfs {
	const struct heap_snapshot *snap;
	struct heap_paths *hp;
	uint32_t *queue;
	size_t head, tail;
	uint32_t from;		/* the path of the object being traversed */
};

static void reach(struct bfs *b, uint32_t obj, uint32_t path)
{
	b->hp->obj_path[obj] = path;
	b->queue[b->tail++] = obj;
}

static void on_edge(void *ud, const struct heap_edge *e)
{
	struct bfs *b = ud;
	uint32_t obj = heap_snapshot_find(b->snap, e->child), path = b->from;
	char label[LABEL_MAX];

	if (obj == HASHIDX_NONE || b->hp->obj_path[obj] != HEAP_PATH_NONE)
		return;
	if (e->kind != HE_VALUE && b->hp->p[b->from].depth < HEAP_PATH_MAX_DEPTH) {
		heap_edge_label(&b->snap->ctx, e, label, sizeof(label));
		path = path_intern(b->hp, b->from, label);
	}
	reach(b, obj, path);
}

static void root(struct bfs *b, uint64_t addr, const char *label)
{
	uint32_t obj = heap_snapshot_find(b->snap, addr);

	if (obj != HASHIDX_NONE && b->hp->obj_path[obj] == HEAP_PATH_NONE)
		reach(b, obj, path_intern(b->hp, HEAP_PATH_NONE, label));
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
}

static void tally(const struct heap_snapshot *snap, struct heap_paths *hp)
{
	for (uint32_t i = 0; i < snap->n; i++) {
		uint32_t p = hp->obj_path[i] == HEAP_PATH_NONE ? hp->unreached : hp->obj_path[i];

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

int heap_paths_build(const struct heap_snapshot *snap, struct heap_paths *hp)
{
	struct bfs b = { .snap = snap, .hp = hp };

	memset(hp, 0, sizeof(*hp));
	hp->obj_path = malloc((snap->n + 1) * sizeof(*hp->obj_path));
	b.queue = malloc((snap->n + 1) * sizeof(*b.queue));
	if (!hp->obj_path || !b.queue) {
		free(b.queue);
		heap_paths_free(hp);
		return -1;
	}
	memset(hp->obj_path, 0xff, (snap->n + 1) * sizeof(*hp->obj_path));
	hp->unreached = path_intern(hp, HEAP_PATH_NONE, "[not reached from the roots]");
	add_roots(&b);
	while (b.head < b.tail) {
		uint32_t obj = b.queue[b.head++];

		b.from = hp->obj_path[obj];
		heap_refs(&snap->ctx, &snap->objs[obj], on_edge, &b);
	}
	free(b.queue);
	tally(snap, hp);
	return 0;
}

void heap_paths_free(struct heap_paths *hp)
{
	free(hp->p);
	free(hp->pool);
	free(hp->obj_path);
	hashidx_free(&hp->idx);
	memset(hp, 0, sizeof(*hp));
}
