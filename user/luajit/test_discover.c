// SPDX-License-Identifier: MIT
/* Unit tests for VM discovery over recorded memory: snapshots of real
 * LuaJIT processes (tests/fuzz/corpus, taken by tests/fuzz/snapshot) with
 * the maps a process would have around them.  No live target, no BPF. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/unit.h"
#include "luajit/discover.h"
#include "luajit/layout.h"
#include "proc/memory.h"
#include "proc/procmaps.h"

#define CORPUS		"tests/fuzz/corpus/"
#define MAX_REGIONS	260
#define CODE_BASE	0x400000ull	/* the fixture's executable mapping */
#define CODE_LEN	0x100000ull

struct image {
	uint8_t *file;
	int layout;
	uint64_t gg, g;
	struct mem_region r[MAX_REGIONS];
	size_t n;
	uint64_t dispatch;		/* the slot discovery reads lj_vm_asm_begin from */
	uint64_t asm_begin;		/* its value */
};

static uint64_t le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* Reads a snapshot (tests/fuzz/snapfmt.h): the header, the stacks
 * (skipped) and the memory regions. */
static int load(const char *name, struct image *im)
{
	char path[256];
	long len;
	size_t at, nstacks, nregions;
	FILE *f;

	memset(im, 0, sizeof(*im));
	snprintf(path, sizeof(path), CORPUS "%s.snap", name);
	f = fopen(path, "rb");
	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	im->file = malloc((size_t)len);
	if (!im->file || fread(im->file, 1, (size_t)len, f) != (size_t)len || len < 24 ||
	    memcmp(im->file, "LBPS", 4)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	im->layout = im->file[5];
	nstacks = im->file[6];
	nregions = im->file[7];
	im->gg = le(im->file + 8, 8);
	im->g = le(im->file + 16, 8);
	at = 24;
	for (size_t i = 0; i < nstacks; i++)
		at += 4 + 16 * le(im->file + at, 2);
	for (size_t i = 0; i < nregions && im->n < MAX_REGIONS - 1; i++) {
		im->r[im->n].addr = le(im->file + at, 8);
		im->r[im->n].len = le(im->file + at + 8, 4);
		im->r[im->n].data = im->file + at + 12;
		at += 12 + im->r[im->n].len;
		if (at > (size_t)len)
			return -1;
		im->n++;
	}
	return 0;
}

/* The recorded symbolization need not have read the dispatch slot: then it
 * is added, pointing into the fixture's code. */
static void add_dispatch(struct image *im)
{
	const struct lj_layout *lay = layout_at(im->layout % layout_count());
	struct mem_reader *mem = mem_open_image(im->r, im->n);

	im->dispatch = im->g + lay->g2disp + 8ull * lay->len_ddisp;
	if (mem_read(mem, im->dispatch, &im->asm_begin, 8)) {
		im->asm_begin = CODE_BASE + 0x1230;
		im->r[im->n].addr = im->dispatch;
		im->r[im->n].data = &im->asm_begin;
		im->r[im->n].len = 8;
		im->n++;
	}
	mem_close(mem);
}

/* The maps: LuaJIT's first arena chunk (GG at its 0x380) and the code
 * the dispatch table points into. */
static void fixture_maps(const struct image *im, struct map_entry e[2], struct proc_maps *maps,
			 bool with_code)
{
	memset(e, 0, 2 * sizeof(*e));
	e[0].start = im->gg - 0x380;
	e[0].end = e[0].start + 0x10000;
	e[0].r = e[0].w = true;
	e[1].start = im->asm_begin & ~0xfffull;
	e[1].end = e[1].start + CODE_LEN;
	e[1].r = e[1].x = true;
	e[1].inode = 42;
	snprintf(e[1].path, sizeof(e[1].path), "/fixture/bin/luajit");
	maps->e = e;
	maps->n = with_code ? 2 : 1;
}

static enum discover_result run_b(const struct image *im, bool with_code, struct lj_vm *vm,
				  int max, const struct discover_budget *b,
				  struct discover_report *rep)
{
	struct map_entry e[2];
	struct proc_maps maps;
	struct mem_reader *mem = mem_open_image(im->r, im->n);
	enum discover_result res;

	fixture_maps(im, e, &maps, with_code);
	/* pid 0: no /proc/0/map_files, so the interpreter size is guessed. */
	res = discover_vms_in(0, &maps, mem, vm, max, b, rep);
	mem_close(mem);
	return res;
}

static enum discover_result run(const struct image *im, bool with_code, struct lj_vm *vm,
				struct discover_report *rep)
{
	return run_b(im, with_code, vm, 1, NULL, rep);
}

static void test_snapshot(const char *name)
{
	struct image im;
	struct lj_vm vm;
	struct discover_report rep;
	enum discover_result res;
	char what[160];
	uint8_t *gg_bytes = NULL;

	snprintf(what, sizeof(what), "discover %s: snapshot loads", name);
	CHECK(what, !load(name, &im));
	if (!im.n) {
		free(im.file);
		return;
	}
	add_dispatch(&im);
	res = run(&im, true, &vm, &rep);
	snprintf(what, sizeof(what), "discover %s: one VM found", name);
	CHECK(what, res == DISCOVER_FOUND && rep.nvms == 1);
	snprintf(what, sizeof(what), "discover %s: GG, g and layout as recorded", name);
	CHECK(what, res == DISCOVER_FOUND && vm.gg == im.gg && vm.g == im.g &&
	      vm.layout == layout_at(im.layout % layout_count()));
	snprintf(what, sizeof(what), "discover %s: interpreter from the dispatch table", name);
	CHECK(what, res == DISCOVER_FOUND && vm.vm_lo == im.asm_begin &&
	      vm.vm_hi == im.asm_begin + 0x4000 && !strcmp(vm.elf_path, "/fixture/bin/luajit"));

	/* A stop (SIGTERM): the full scan (looking for a second VM) ends
	 * before its first chunk; the fast path's VM is kept. */
	{
		volatile sig_atomic_t stop = 1;
		struct discover_budget b = { .stop = &stop };
		struct lj_vm two[2];

		res = run_b(&im, true, two, 2, &b, &rep);
		snprintf(what, sizeof(what), "discover %s: a stop ends the scan, the VM found is kept", name);
		CHECK(what, res == DISCOVER_FOUND && rep.cut && !strcmp(rep.cut, "asked to stop") &&
		      rep.bytes_scanned == 0);
		stop = 0;
		res = run_b(&im, true, two, 2, &b, &rep);
		snprintf(what, sizeof(what), "discover %s: without it, the whole scan", name);
		CHECK(what, res == DISCOVER_FOUND && !rep.cut);
	}

	/* Dispatch into memory that is not code: the candidate is refused. */
	res = run(&im, false, &vm, &rep);
	snprintf(what, sizeof(what), "discover %s: dispatch not into code is refused", name);
	CHECK(what, res == DISCOVER_UNRECOGNISED && rep.candidates == 1 &&
	      strstr(rep.first_refusal, "dispatch table does not point to code"));

	/* The lua_State signature wiped: nothing to find. */
	for (size_t i = 0; i < im.n; i++) {
		struct mem_region *r = &im.r[i];

		if (im.gg >= r->addr && im.gg + 32 <= r->addr + r->len) {
			gg_bytes = malloc(r->len);
			memcpy(gg_bytes, r->data, r->len);
			memset(gg_bytes + (im.gg - r->addr), 0, 32);
			r->data = gg_bytes;
		}
	}
	res = run(&im, true, &vm, &rep);
	snprintf(what, sizeof(what), "discover %s: no VM without its signature", name);
	CHECK(what, gg_bytes && res == DISCOVER_NO_VM && rep.candidates == 0);
	free(gg_bytes);
	free(im.file);
}

int main(void)
{
	/* Both widths, both VMs, the JIT on and off. */
	test_snapshot("cfuncs-deb-bin");
	test_snapshot("cfuncs-or-host");
	test_snapshot("pcall-joff-deb-host");
	test_snapshot("zones-or-bin");
	UNIT_EXIT();
}
