// SPDX-License-Identifier: MIT
/* The heap walker, census and reference paths on synthetic heaps
 * (heap/test_heap_image.h), GC64 and non-GC64: exact counts and sizes,
 * exact paths, and corruptions (a cycle in the root list, a bad pointer,
 * a truncated image, a wild string table) counted, never followed. */
#include <stdio.h>
#include <string.h>

#include "base/unit.h"
#include "model/heap_census.h"
#include "model/heap_paths.h"
#include "heap/heap_walk.h"
#include "proc/memory.h"
#include "heap/test_heap_image.h"

static struct heap_image im;

static int walk(size_t len, struct heap_snapshot *s, struct mem_reader **mem)
{
	static struct mem_region r;
	char why[128];

	r = (struct mem_region){ im.base, im.b, len };
	*mem = mem_open_image(&r, 1);
	return heap_walk(*mem, im.lay, im.base + HI_GG + im.lay->sizeof_L, s, why, sizeof(why));
}

static const char *path_of(const struct heap_snapshot *s, const struct heap_paths *hp,
			   uint64_t off)
{
	static char buf[256];
	uint32_t i = heap_snapshot_find(s, im.base + off);

	if (i == HASHIDX_NONE || hp->obj_path[i] == HEAP_PATH_NONE)
		return "(none)";
	heap_path_name(hp, hp->obj_path[i], "", buf, sizeof(buf));
	return buf;
}

static void intact(const struct lj_layout *lay, const char *w)
{
	const struct heap_kind_row *k;
	struct heap_snapshot s;
	struct heap_census c;
	struct heap_paths hp;
	struct mem_reader *mem;
	char name[128];
	unsigned rs = lay->gc64 ? 8 : 4;

	heap_image_build(&im, lay);
	snprintf(name, sizeof(name), "%s: walk", w);
	CHECK(name, walk(HI_SIZE, &s, &mem) == 0);
	heap_census_count(&s, &c);
	k = c.kind;
	snprintf(name, sizeof(name), "%s: counts", w);
	CHECK(name, c.objects == 9 && k[HK_TABLE].count == 3 && k[HK_STRING].count == 2 &&
		    k[HK_CFUNC].count == 1 && k[HK_UDATA].count == 1 && k[HK_CDATA].count == 1 &&
		    k[HK_THREAD].count == 1);
	snprintf(name, sizeof(name), "%s: table bytes (header, colocated and separate arrays, hash)", w);
	CHECK(name, k[HK_TABLE].bytes == 3u * lay->sizeof_tab + 3 * 8 + 2 * 8 + 2u * lay->node_size &&
		    k[HK_TABLE].bytes_a == 24 && k[HK_TABLE].bytes_h == 2u * lay->node_size);
	snprintf(name, sizeof(name), "%s: string bytes", w);
	CHECK(name, k[HK_STRING].bytes == 2u * lay->str_data + 4 + 8);
	snprintf(name, sizeof(name), "%s: other bytes", w);
	CHECK(name, k[HK_CFUNC].bytes == lay->sizeof_fnc0 + 8u &&
		    k[HK_UDATA].bytes == lay->sizeof_udata + 100u && k[HK_CDATA].bytes == 48 &&
		    k[HK_THREAD].bytes == lay->sizeof_L + 80u);
	snprintf(name, sizeof(name), "%s: string table, gc.total, no inconsistency", w);
	CHECK(name, c.strtab_bytes == 4 * rs && c.gc_total == HI_GC_TOTAL &&
		    s.st.bad_links + s.st.repeats + s.st.truncated == 0);
	snprintf(name, sizeof(name), "%s: paths", w);
	CHECK(name, !heap_paths_build(&s, &hp));
	snprintf(name, sizeof(name), "%s: path of T1", w);
	CHECK_STR(name, path_of(&s, &hp, HI_T1), "_G.app");
	/* Globals before stack slots (docs/heap.md): T2, reachable from the
	 * main thread's stack and from _G.app, is named by the global. */
	snprintf(name, sizeof(name), "%s: path of T2", w);
	CHECK_STR(name, path_of(&s, &hp, HI_T2), "_G.app[*]");
	snprintf(name, sizeof(name), "%s: a string reached first as a key", w);
	CHECK_STR(name, path_of(&s, &hp, HI_HELLO), "_G[key]");
	snprintf(name, sizeof(name), "%s: path of the C function", w);
	CHECK_STR(name, path_of(&s, &hp, HI_CFUNC), "_G.hello");
	snprintf(name, sizeof(name), "%s: path of a key string", w);
	CHECK_STR(name, path_of(&s, &hp, HI_APP), "_G[key]");
	snprintf(name, sizeof(name), "%s: the userdata is not reached", w);
	CHECK_STR(name, path_of(&s, &hp, HI_UDATA), "(none)");
	heap_paths_free(&hp);
	heap_snapshot_free(&s);
	mem_close(mem);
}

/* Corrupts the image, walks it; returns the walk's inconsistencies. */
static uint64_t corrupted(const struct lj_layout *lay, uint64_t off, uint64_t target, size_t len,
			  size_t *nobj)
{
	struct heap_snapshot s;
	struct heap_paths hp;
	struct mem_reader *mem;
	uint64_t bad = ~0ull;

	heap_image_build(&im, lay);
	if (off)
		hi_put(&im, off, target, lay->gc64 ? 8 : 4);
	if (!walk(len, &s, &mem)) {
		bad = s.st.bad_links + s.st.repeats + s.st.truncated;
		*nobj = s.n;
		if (!heap_paths_build(&s, &hp))
			heap_paths_free(&hp);
		heap_snapshot_free(&s);
	}
	mem_close(mem);
	return bad;
}

static void corruptions(const struct lj_layout *lay, const char *w)
{
	char name[128];
	size_t n = 0;
	uint64_t b = lay->gc64 ? 0x7f0000100000ull : 0x40000000ull;

	snprintf(name, sizeof(name), "%s: a cycle in the root list ends it", w);
	CHECK(name, corrupted(lay, HI_T2, b + HI_T1, HI_SIZE, &n) == 1 && n == 5);
	snprintf(name, sizeof(name), "%s: a misaligned link is not followed", w);
	CHECK(name, corrupted(lay, HI_G, b + HI_CFUNC + 3, HI_SIZE, &n) == 1 && n == 6);
	snprintf(name, sizeof(name), "%s: a link to a non-object is not followed", w);
	CHECK(name, corrupted(lay, HI_G, b + HI_NODES, HI_SIZE, &n) == 1 && n == 6);
	snprintf(name, sizeof(name), "%s: a link out of the image is not followed", w);
	CHECK(name, corrupted(lay, HI_T1, b + 0x100000, HI_SIZE, &n) == 1 && n == 4);
	snprintf(name, sizeof(name), "%s: a truncated image counts the lost strings", w);
	CHECK(name, corrupted(lay, 0, 0, HI_APP, &n) == 2 && n == 4);
	snprintf(name, sizeof(name), "%s: a wild string table mask is refused", w);
	CHECK(name, corrupted(lay, HI_GG + lay->sizeof_L + lay->g_strmask, 0xfffffff, HI_SIZE,
			      &n) == 1 && n == 7);
}

int main(void)
{
	const struct lj_layout *gc64 = layout_at(0), *gc32 = layout_at(3);

	CHECK("layouts for the test", gc64 && gc64->gc64 && gc32 && !gc32->gc64);
	/* Every 2.1 layout but Tarantool's has the heap block, of its width. */
	for (int i = 0; i < layout_count(); i++) {
		const struct lj_layout *l = layout_at(i);
		char name[160];

		if (l->refusal || l->tarantool)
			continue;
		snprintf(name, sizeof(name), "heap fields of %s", l->name);
		CHECK(name, l->g_strtab && l->g_ctype_state > l->g_cur_L &&
			    l->sizeof_tab == (l->gc64 ? 64 : 32) &&
			    l->sizeof_upval == (l->gc64 ? 48 : 24) && l->g_tmpbuf > l->g_mainthref);
	}
	intact(gc64, "GC64");
	intact(gc32, "non-GC64");
	corruptions(gc64, "GC64");
	corruptions(gc32, "non-GC64");
	UNIT_EXIT();
}
