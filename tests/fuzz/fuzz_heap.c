// SPDX-License-Identifier: MIT
/* libFuzzer target: the heap walker, census and reference paths on a
 * synthetic heap (user/heap/test_heap_image.h) corrupted by the input:
 *   byte 0     bit 0 picks GC64 or non-GC64; bits 1-7 truncate the image
 *              (0: whole, else to that many 64-byte units of the first 8 KiB
 *              plus the rest)
 *   then       records of 6 bytes { u16 offset, u32 value }: a 4-byte store
 *              into the image, at most 64 of them: pointers bent into
 *              cycles, into the void or onto the wrong type, sizes and
 *              counts made wild.
 * An input that parses as a process snapshot (snapfmt.h: the seed corpus of
 * real processes) is walked instead, from its own global_State with its
 * own layout: real headers among missing memory.
 * Each walk is then dumped as `luabpfprof dump --locals` does (every
 * thread's frames, named, with their locals; the image's main thread
 * gets a frame for it), text and JSON written to /dev/null.
 * Every walk must end, within its bounds, without a sanitizer report. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "model/heap_census.h"
#include "model/dump.h"
#include "model/heap_paths.h"
#include "report/dump_out.h"
#include "symbolize/dump_build.h"
#include "symbolize/symbolize.h"
#include "heap/heap_walk.h"
#include "proc/memory.h"
#include "heap/test_heap_image.h"
#include "snapfmt.h"

#define MAX_PATCHES	64

static struct heap_image im;
static struct snapshot snap;
static FILE *devnull;

/* What dump makes of the walk: every thread read, named and written. */
static void dump(struct mem_reader *mem, const struct lj_layout *lay, uint64_t g,
		 const struct heap_snapshot *s)
{
	struct dump_opts o = { .locals = true, .width = 40 };
	struct symbolizer *sym = sym_new(mem, lay, NULL);
	struct dump d;

	if (!sym)
		return;
	sym_set_vm(sym, g);
	dump_init(&d, 1, lay->name, g);
	dump_build(sym, s, &o, &d);
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	if (devnull) {
		dump_text(devnull, &d);
		dump_json(devnull, &d);
	}
	dump_free(&d);
	sym_free(sym);
}

/* Walks, counts and names the heap behind mem. */
static void walk(struct mem_reader *mem, const struct lj_layout *lay, uint64_t g)
{
	struct heap_snapshot s;
	struct heap_census c;
	struct heap_paths hp;
	char why[128], name[512];

	if (heap_walk(mem, lay, g, &s, why, sizeof(why)))
		return;
	dump(mem, lay, g, &s);
	heap_census_count(&s, &c);
	if (!heap_paths_build(&s, &hp)) {
		for (size_t i = 0; i < hp.n; i++)
			heap_path_name(&hp, (uint32_t)i, ";", name, sizeof(name));
		heap_paths_free(&hp);
	}
	heap_snapshot_free(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mem_region r;
	struct mem_reader *mem;
	size_t len = HI_SIZE;
	int n = 0;

	if (!size)
		return 0;
	if (!snap_parse(data, size, &snap)) {
		mem = mem_open_image(snap.regions, (size_t)snap.nregions);
		if (mem)
			walk(mem, layout_at((snap.layout & 0x7f) % layout_count()), snap.g);
		mem_close(mem);
		return 0;
	}
	heap_image_build(&im, layout_at(data[0] & 1 ? 3 : 0));
	/* A frame above the main thread's two slots, for dump's frame walk. */
	hi_put(&im, HI_GG + im.lay->L_base, im.base + HI_STACK + 16, 8);
	if (data[0] >> 1)
		len = (size_t)(data[0] >> 1) * 64 + (HI_SIZE - 8192);
	for (size_t at = 1; at + 6 <= size && n < MAX_PATCHES; at += 6, n++) {
		uint16_t off;
		uint32_t v;

		memcpy(&off, data + at, 2);
		memcpy(&v, data + at + 2, 4);
		off %= HI_SIZE - 8;
		/* A value near the image's base makes a pointer that lands in it. */
		if (v & 0x80000000u)
			hi_put(&im, off, im.base + (v & 0x7ff8), im.lay->gc64 ? 8 : 4);
		else
			hi_put(&im, off, v, 4);
	}
	r = (struct mem_region){ im.base, im.b, len };
	mem = mem_open_image(&r, 1);
	if (!mem)
		return 0;
	walk(mem, im.lay, im.base + HI_GG + im.lay->sizeof_L);
	mem_close(mem);
	return 0;
}
