// SPDX-License-Identifier: MIT
/* VM discovery: signature scan + validation + interpreter code range. */
#include "luajit/discover.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "proc/elfinfo.h"
#include "base/log.h"
#include "luajit/luaobj.h"
#include "proc/memory.h"
#include "proc/pagemap.h"
#include "proc/procmaps.h"

#define SCAN_CHUNK	(1u << 20)
#define SIG_BYTES	32		/* bytes the lua_State signature needs */
#define GG_FAST_OFFSET	0x380		/* GG in LuaJIT's own allocator's first chunk */
#define VM_BLOB_GUESS	0x4000		/* interpreter size when no FDE is found */
#define FFI_CALL_MAX	0x400		/* lj_vm_ffi_call is a few hundred bytes */
#define MAX_SCAN_MAP	(1ull << 30)	/* larger mappings are not scanned */

static bool is_scannable(const struct map_entry *e)
{
	if (!e->r || !e->w || map_is_file(e))
		return false;
	if (e->path[0] == '[' && strcmp(e->path, "[heap]"))
		return false;	/* [stack], [vvar] ... */
	return e->end - e->start <= MAX_SCAN_MAP;
}

static bool seen(const struct lj_vm *vms, int n, uint64_t gg)
{
	for (int i = 0; i < n; i++)
		if (vms[i].gg == gg)
			return true;
	return false;
}

/* Interpreter range from the .eh_frame FDE that starts at lj_vm_asm_begin. */
static void find_vm_range(pid_t pid, const struct proc_maps *maps, struct lj_vm *vm,
			  uint64_t asm_begin)
{
	const struct map_entry *e = procmaps_find(maps, asm_begin);
	struct elf_file *ef = NULL;
	uint64_t vaddr, lo, hi, lo2, hi2;
	char path[128];

	vm->vm_lo = asm_begin;
	vm->vm_hi = asm_begin + VM_BLOB_GUESS;
	vm->vm_ffi_hi = vm->vm_hi;
	if (!e)
		return;
	vm->obj_lo = e->start;
	vm->obj_hi = e->end;
	snprintf(vm->elf_path, sizeof(vm->elf_path), "%s", e->path);
	/* map_files reaches the exact file even across mount namespaces. */
	snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", (int)pid,
		 (unsigned long long)e->start, (unsigned long long)e->end);
	ef = elf_file_open(path);
	if (!ef)
		goto cleanup;
	if (elf_offset_to_vaddr(ef, asm_begin - e->start + e->offset, &vaddr) ||
	    elf_fde_range(ef, vaddr, &lo, &hi) || lo != vaddr) {
		log_verbose("PID %d: no unwind entry at lj_vm_asm_begin; assuming %#x bytes",
			    (int)pid, VM_BLOB_GUESS);
		goto cleanup;
	}
	vm->vm_hi = asm_begin + (hi - lo);
	vm->vm_ffi_hi = vm->vm_hi;
	if (!elf_fde_range(ef, hi, &lo2, &hi2) && lo2 == hi && hi2 - lo2 <= FFI_CALL_MAX)
		vm->vm_ffi_hi = vm->vm_hi + (hi2 - lo2);
cleanup:
	elf_file_close(ef);
}

/* Validates a signature hit and records the VM. */
static int accept_candidate(pid_t pid, struct mem_reader *mem, const struct proc_maps *maps,
			    uint64_t gg, bool gc64, struct lj_vm *vm,
			    struct discover_report *rep)
{
	struct layout_probe probe;
	const struct map_entry *code;
	uint64_t asm_begin = 0;

	rep->candidates++;
	if (layout_identify(mem, gg, gc64, &probe)) {
		log_verbose("PID %d: candidate at %#llx refused: %s", (int)pid,
			    (unsigned long long)gg, probe.why);
		if (!rep->first_refusal[0])
			snprintf(rep->first_refusal, sizeof(rep->first_refusal), "%s", probe.why);
		if (probe.refused && !rep->unsupported[0])
			snprintf(rep->unsupported, sizeof(rep->unsupported), "%s", probe.why);
		return -1;
	}
	memset(vm, 0, sizeof(*vm));
	vm->gg = gg;
	vm->g = gg + probe.layout->sizeof_L;
	vm->layout = probe.layout;
	/* The static dispatch entry of BC_ISLT is lj_vm_asm_begin: it must be
	 * executable code, or the dispatch offset (and so the layout) is wrong. */
	if (mem_read(mem, vm->g + probe.layout->g2disp + 8ull * probe.layout->len_ddisp,
		     &asm_begin, 8) ||
	    !(code = procmaps_find(maps, asm_begin)) || !code->x) {
		log_verbose("PID %d: candidate at %#llx refused: dispatch table does not point to code",
			    (int)pid, (unsigned long long)gg);
		if (!rep->first_refusal[0])
			snprintf(rep->first_refusal, sizeof(rep->first_refusal),
				 "%s: dispatch table does not point to code", probe.layout->name);
		return -1;
	}
	find_vm_range(pid, maps, vm, asm_begin);
	return 0;
}

/* Checks one address for either width's signature. */
static void probe_at(pid_t pid, struct mem_reader *mem, const struct proc_maps *maps,
		     const uint8_t *bytes, uint64_t addr, struct lj_vm *vms, int max,
		     struct discover_report *rep)
{
	for (int gc64 = 1; gc64 >= 0 && rep->nvms < max; gc64--) {
		if (!gc64 && addr >= (1ull << 32))
			break;	/* non-GC64 objects live in the low 4 GiB */
		if (!layout_signature(bytes, addr, gc64) || seen(vms, rep->nvms, addr))
			continue;
		if (!accept_candidate(pid, mem, maps, addr, gc64, &vms[rep->nvms], rep))
			rep->nvms++;
	}
}

#define WINDOW_PAGES	16384	/* pagemap entries read at once: 64 MiB */

/* One scan's limits, as they stand, and the pagemap window it reads. */
struct scan_limits {
	struct pagemap *pm;		/* NULL: every page counts as touched */
	uint64_t max_bytes, deadline_ns;
	volatile sig_atomic_t *stop;
	uint64_t win_lo, win_hi, page;	/* present[] covers win_lo..win_hi */
	uint8_t present[WINDOW_PAGES];
};

/* Which of the np pages from at (inside a mapping ending at end) were
 * touched, into out; -1 when unknown.  A window is read at a time: one
 * read per 64 MiB instead of one per chunk. */
static int touched_pages(struct scan_limits *l, uint64_t at, size_t np, uint64_t end,
			 uint8_t *out)
{
	uint64_t hi = at + np * l->page;

	if (at < l->win_lo || hi > l->win_hi) {
		uint64_t n = (end - at) / l->page;

		n = n < WINDOW_PAGES ? n : WINDOW_PAGES;
		l->win_lo = l->win_hi = 0;
		if (n < np || pagemap_present(l->pm, at, (size_t)n, l->present))
			return -1;
		l->win_lo = at;
		l->win_hi = at + n * l->page;
	}
	memcpy(out, l->present + (at - l->win_lo) / l->page, np);
	return 0;
}

/* Whether the page holding addr was touched (or it cannot be told). */
static bool page_touched(const struct scan_limits *l, uint64_t addr)
{
	uint8_t present = 1;

	if (l->pm)
		pagemap_present(l->pm, addr - addr % pagemap_page_size(l->pm), 1, &present);
	return present;
}

/* Why the scan must stop before the next chunk, or NULL. */
static const char *over_budget(const struct scan_limits *l, const struct discover_report *rep)
{
	if (l->stop && *l->stop)
		return "asked to stop";
	if (rep->bytes_scanned >= l->max_bytes)
		return "its byte budget was spent";
	if (clock_ns(CLOCK_MONOTONIC) >= l->deadline_ns)
		return "its time budget was spent";
	return NULL;
}

/* Reads the chunk at..at+len into buf: only the pages the process
 * touched (the rest stays zeros, which hold no VM), so that the scan
 * neither reads reserved address space nor maps the zero page there
 * itself.  Without a pagemap, the whole chunk.  -1 when nothing was read. */
static int read_touched(struct mem_reader *mem, struct scan_limits *l, uint64_t at,
			uint64_t len, uint64_t end, uint8_t *buf, struct discover_report *rep)
{
	uint8_t present[SCAN_CHUNK / 4096];
	uint64_t page = l->page;
	size_t np = page ? (size_t)((len + page - 1) / page) : 0;
	uint64_t got = 0;

	if (!l->pm || page < 4096 || at % page || np > sizeof(present) ||
	    touched_pages(l, at, np, end, present)) {
		if (mem_read(mem, at, buf, len))
			return -1;
		rep->bytes_scanned += len;
		return 0;
	}
	for (size_t i = 0; i < np; ) {
		size_t j = i;
		uint64_t off = i * page, run;

		while (j < np && present[j] == present[i])
			j++;
		run = (j * page < len ? j * page : len) - off;
		if (!present[i] || mem_read(mem, at + off, buf + off, run)) {
			memset(buf + off, 0, run);
			if (!present[i])
				rep->bytes_untouched += run;
		} else {
			got += run;
		}
		i = j;
	}
	rep->bytes_scanned += got;
	return got ? 0 : -1;
}

static void scan_mapping(pid_t pid, struct mem_reader *mem, const struct proc_maps *maps,
			 const struct map_entry *e, uint8_t *buf, struct lj_vm *vms, int max,
			 struct scan_limits *l, struct discover_report *rep)
{
	if (pagemap_untouched_map(l->pm, e->start, e->end)) {
		rep->bytes_untouched += e->end - e->start;
		return;
	}
	for (uint64_t at = e->start; at < e->end && rep->nvms < max; at += SCAN_CHUNK) {
		uint64_t len = e->end - at < SCAN_CHUNK ? e->end - at : SCAN_CHUNK;

		if ((rep->cut = over_budget(l, rep)))
			return;
		if (read_touched(mem, l, at, len, e->end, buf, rep))
			continue;	/* unreadable chunk (e.g. MAP_NORESERVE hole) */
		for (uint64_t off = 0; off + SIG_BYTES <= len; off += 8) {
			const uint8_t *b = buf + off;

			if (layout_signature_hint(b))
				probe_at(pid, mem, maps, b, at + off, vms, max, rep);
		}
	}
}

enum discover_result discover_vms_in(pid_t pid, const struct proc_maps *maps,
				     struct mem_reader *mem, struct lj_vm *vms, int max,
				     const struct discover_budget *b, struct discover_report *rep)
{
	struct scan_limits *l = calloc(1, sizeof(*l));
	uint8_t *buf;
	uint8_t head[SIG_BYTES];

	memset(rep, 0, sizeof(*rep));
	buf = malloc(SCAN_CHUNK);
	if (!l || !buf) {
		free(l);
		free(buf);
		return DISCOVER_GONE;
	}
	l->max_bytes = b && b->max_bytes ? b->max_bytes : DISCOVER_MAX_BYTES;
	l->deadline_ns = clock_ns(CLOCK_MONOTONIC) + (b && b->max_ns ? b->max_ns : DISCOVER_MAX_NS);
	l->stop = b ? b->stop : NULL;
	l->pm = pagemap_open(pid);
	l->page = l->pm ? pagemap_page_size(l->pm) : 0;
	/* Fast path first: LuaJIT's allocator puts GG at a fixed offset in
	 * its first chunk (docs/luajit-internals.md, "Finding the VM"). */
	for (int i = 0; i < maps->n && rep->nvms < max; i++) {
		uint64_t gg = maps->e[i].start + GG_FAST_OFFSET;

		if (is_scannable(&maps->e[i]) && gg + SIG_BYTES <= maps->e[i].end &&
		    page_touched(l, gg) && !mem_read(mem, gg, head, sizeof(head)))
			probe_at(pid, mem, maps, head, gg, vms, max, rep);
	}
	/* Hosts with their own allocator (or several VMs) need the full scan. */
	for (int i = 0; i < maps->n && rep->nvms < max && !rep->cut; i++)
		if (is_scannable(&maps->e[i]))
			scan_mapping(pid, mem, maps, &maps->e[i], buf, vms, max, l, rep);
	pagemap_close(l->pm);
	free(l);
	free(buf);
	if (rep->cut)
		log_verbose("PID %d: VM scan stopped after %llu MiB read (%llu MiB never touched, not read): %s",
			    (int)pid, (unsigned long long)(rep->bytes_scanned >> 20),
			    (unsigned long long)(rep->bytes_untouched >> 20), rep->cut);
	return rep->nvms ? DISCOVER_FOUND : rep->candidates ? DISCOVER_UNRECOGNISED : DISCOVER_NO_VM;
}

enum discover_result discover_vms(pid_t pid, struct mem_reader *mem, struct lj_vm *vms,
				  int max, const struct discover_budget *b,
				  struct discover_report *rep)
{
	struct proc_maps maps;
	enum discover_result res;

	memset(rep, 0, sizeof(*rep));
	if (procmaps_read(pid, &maps))
		return DISCOVER_GONE;
	res = discover_vms_in(pid, &maps, mem, vms, max, b, rep);
	procmaps_free(&maps);
	return res;
}

uint64_t discover_zone_table(struct mem_reader *mem, const struct lj_vm *vm)
{
	const struct lj_layout *lay = vm->layout;
	uint64_t registry = 0, loaded = 0, zone = 0;

	if (mem_read(mem, vm->g + lay->g_registrytv, &registry, 8) ||
	    lj_tv_itype(lay, registry) != LJ_TTAB ||
	    lj_tab_getstr(mem, lay, lj_tv_gcptr(lay, registry), "_LOADED", &loaded) ||
	    lj_tv_itype(lay, loaded) != LJ_TTAB ||
	    lj_tab_getstr(mem, lay, lj_tv_gcptr(lay, loaded), "jit.zone", &zone) ||
	    lj_tv_itype(lay, zone) != LJ_TTAB)
		return 0;
	return lj_tv_gcptr(lay, zone);
}

void discover_vm_slot(const struct lj_vm *vm, struct vm_slot *slot)
{
	memset(slot, 0, sizeof(*slot));
	slot->g = vm->g;
	slot->zone_tab = vm->zone_tab;
	slot->vm_lo = vm->vm_lo;
	slot->vm_hi = vm->vm_hi;
	slot->obj_lo = vm->obj_lo;
	slot->obj_hi = vm->obj_hi;
	layout_bpf_offsets(vm->layout, &slot->off);
}

const char *discover_why(enum discover_result res, const struct discover_report *rep)
{
	if (res == DISCOVER_GONE)
		return "no such process (or not readable)";
	if (rep->unsupported[0])
		return rep->unsupported;
	if (res == DISCOVER_NO_VM && rep->cut)
		return !strcmp(rep->cut, "asked to stop") ? "no LuaJIT VM found before the stop" :
		       "no LuaJIT VM found in the memory a scan may read (2 GiB of touched pages in 2 s)";
	return res == DISCOVER_UNRECOGNISED ? "a LuaJIT VM of an unknown layout" :
					      "no LuaJIT VM found";
}

struct mem_reader *discover_open(pid_t pid, struct lj_vm *vms, int max,
				 struct discover_report *rep)
{
	struct mem_reader *mem = mem_open_pid(pid);
	enum discover_result res;

	if (!mem) {
		log_error("PID %d: cannot read its memory", (int)pid);
		return NULL;
	}
	res = discover_vms(pid, mem, vms, max, NULL, rep);
	if (res != DISCOVER_FOUND) {
		log_error("PID %d: %s", (int)pid, discover_why(res, rep));
		mem_close(mem);
		return NULL;
	}
	return mem;
}
