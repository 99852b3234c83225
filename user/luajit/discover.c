/* VM discovery: signature scan + validation + interpreter code range. */
#include "luajit/discover.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "proc/elfinfo.h"
#include "base/log.h"
#include "luajit/luaobj.h"
#include "proc/memory.h"
#include "proc/procmaps.h"

#define SCAN_CHUNK	(1u << 20)
#define SIG_BYTES	32		/* bytes the lua_State signature needs */
#define GG_FAST_OFFSET	0x380		/* GG in LuaJIT's own allocator's first chunk */
#define VM_BLOB_GUESS	0x4000		/* interpreter size when no FDE is found */
#define FFI_CALL_MAX	0x400		/* lj_vm_ffi_call is a few hundred bytes */
#define MAX_SCAN_MAP	(1ull << 30)	/* larger mappings are not scanned */
#define PFN_MASK	((1ull << 55) - 1)	/* pagemap: bits 0-54 */
#define MIN_PAGE	4096u		/* the smallest base page: bounds the arrays below */

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

/* Scans [at, at + len) of the target, copied into buf. */
static void scan_run(pid_t pid, struct mem_reader *mem, const struct proc_maps *maps,
		     uint64_t at, uint64_t len, uint8_t *buf, struct lj_vm *vms, int max,
		     struct discover_report *rep)
{
	if (mem_read(mem, at, buf, len))
		return;		/* unreadable (e.g. a MAP_NORESERVE hole) */
	rep->bytes_scanned += len;
	for (uint64_t off = 0; off + SIG_BYTES <= len && rep->nvms < max; off += 8) {
		const uint8_t *b = buf + off;

		if (layout_signature_hint(b))
			probe_at(pid, mem, maps, b, at + off, vms, max, rep);
	}
}

/* pagemap's unit: the base page (4K on x86-64, 4K-64K on arm64). */
static uint64_t page_size(void)
{
	long n = sysconf(_SC_PAGESIZE);

	return n >= (long)MIN_PAGE && n <= (long)SCAN_CHUNK ? (uint64_t)n : MIN_PAGE;
}

/* The page frame of the kernel's shared zero page, which a read of a page
 * nobody wrote maps (an earlier scan's reads did, in the target): read
 * from our own pagemap after reading such a page; 0 when PFNs are hidden. */
static uint64_t zero_pfn(void)
{
	static uint64_t pfn = UINT64_MAX;
	volatile const uint8_t *page;
	uint64_t ent = 0;
	int fd;

	if (pfn != UINT64_MAX)
		return pfn;
	pfn = 0;
	page = mmap(NULL, page_size(), PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return pfn;
	(void)page[0];
	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && pread(fd, &ent, 8, (off_t)((uintptr_t)page / page_size() * 8)) == 8 &&
	    ent >> 63)
		pfn = ent & PFN_MASK;
	if (fd >= 0)
		close(fd);
	munmap((void *)page, page_size());
	return pfn;
}

/* Whether each page of the chunk at `at` holds anything written: present
 * (and not the zero page) or swapped, /proc/PID/pagemap bits 63 and 62;
 * false when pagemap cannot tell (then every page is scanned). */
static bool touched_pages(int pagemap, uint64_t at, uint32_t npages, bool *touched)
{
	uint64_t ent[SCAN_CHUNK / MIN_PAGE], zero = zero_pfn();

	if (pagemap < 0 || pread(pagemap, ent, npages * 8, (off_t)(at / page_size() * 8)) !=
			   (ssize_t)(npages * 8))
		return false;
	for (uint32_t i = 0; i < npages; i++)
		touched[i] = (ent[i] >> 62 & 1) ||
			     (ent[i] >> 63 && !(zero && (ent[i] & PFN_MASK) == zero));
	return true;
}

/* A VM's GG_State is written all the time, so it sits in pages the
 * process touched: a host that reserves far more than it uses (rspamd
 * maps 550 MB, 110 MB resident) is scanned in its resident runs only. */
static void scan_mapping(pid_t pid, int pagemap, struct mem_reader *mem,
			 const struct proc_maps *maps, const struct map_entry *e, uint8_t *buf,
			 struct lj_vm *vms, int max, struct discover_report *rep)
{
	bool touched[SCAN_CHUNK / MIN_PAGE];
	uint64_t page = page_size();

	for (uint64_t at = e->start; at < e->end && rep->nvms < max; at += SCAN_CHUNK) {
		uint64_t len = e->end - at < SCAN_CHUNK ? e->end - at : SCAN_CHUNK;
		uint32_t npages = (uint32_t)(len / page), i = 0, j;

		if (len % page || at % page || !touched_pages(pagemap, at, npages, touched)) {
			scan_run(pid, mem, maps, at, len, buf, vms, max, rep);
			continue;
		}
		while (i < npages) {
			for (; i < npages && !touched[i]; i++)
				;
			for (j = i; j < npages && touched[j]; j++)
				;
			if (j > i)
				scan_run(pid, mem, maps, at + (uint64_t)i * page,
					 (uint64_t)(j - i) * page, buf, vms, max, rep);
			i = j;
		}
	}
}

/* /proc/PID/pagemap, or -1 (no process: a test's image, a core). */
static int open_pagemap(pid_t pid)
{
	char path[64];

	if (pid <= 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)pid);
	return open(path, O_RDONLY | O_CLOEXEC);
}

enum discover_result discover_vms_in(pid_t pid, const struct proc_maps *maps,
				     struct mem_reader *mem, struct lj_vm *vms, int max,
				     struct discover_report *rep)
{
	uint8_t *buf;
	uint8_t head[SIG_BYTES];
	int pagemap;

	memset(rep, 0, sizeof(*rep));
	/* Fast path first: LuaJIT's allocator puts GG at a fixed offset in
	 * its first chunk (docs/luajit-internals.md, "Finding the VM"). */
	for (int i = 0; i < maps->n && rep->nvms < max; i++) {
		uint64_t gg = maps->e[i].start + GG_FAST_OFFSET;

		if (is_scannable(&maps->e[i]) && gg + SIG_BYTES <= maps->e[i].end &&
		    !mem_read(mem, gg, head, sizeof(head)))
			probe_at(pid, mem, maps, head, gg, vms, max, rep);
	}
	/* Hosts with their own allocator (or several VMs) need the full scan. */
	buf = malloc(SCAN_CHUNK);
	if (!buf)
		return DISCOVER_GONE;
	pagemap = open_pagemap(pid);
	for (int i = 0; i < maps->n && rep->nvms < max; i++)
		if (is_scannable(&maps->e[i]))
			scan_mapping(pid, pagemap, mem, maps, &maps->e[i], buf, vms, max, rep);
	if (pagemap >= 0)
		close(pagemap);
	free(buf);
	return rep->nvms ? DISCOVER_FOUND : rep->candidates ? DISCOVER_UNRECOGNISED : DISCOVER_NO_VM;
}

enum discover_result discover_vms(pid_t pid, struct mem_reader *mem, struct lj_vm *vms,
				  int max, struct discover_report *rep)
{
	struct proc_maps maps;
	enum discover_result res;

	memset(rep, 0, sizeof(*rep));
	if (procmaps_read(pid, &maps))
		return DISCOVER_GONE;
	res = discover_vms_in(pid, &maps, mem, vms, max, rep);
	procmaps_free(&maps);
	return res;
}

uint64_t discover_zone_table(struct mem_reader *mem, const struct lj_vm *vm)
{
	const struct lj_layout *lay = vm->layout;
	uint64_t registry = 0, loaded = 0, zone = 0;

	if (mem_read(mem, vm->g + lay->g_registrytv, &registry, 8) ||
	    lj_tv_itype(lay, registry) != LJ_ITYPE_TAB ||
	    lj_tab_getstr(mem, lay, lj_tv_gcptr(lay, registry), "_LOADED", &loaded) ||
	    lj_tv_itype(lay, loaded) != LJ_ITYPE_TAB ||
	    lj_tab_getstr(mem, lay, lj_tv_gcptr(lay, loaded), "jit.zone", &zone) ||
	    lj_tv_itype(lay, zone) != LJ_ITYPE_TAB)
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
	res = discover_vms(pid, mem, vms, max, rep);
	if (res != DISCOVER_FOUND) {
		log_error("PID %d: %s", (int)pid, discover_why(res, rep));
		mem_close(mem);
		return NULL;
	}
	return mem;
}
