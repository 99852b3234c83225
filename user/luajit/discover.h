/* SPDX-License-Identifier: MIT */
/* Finding LuaJIT VMs in a running process without symbols: a signature
 * scan of its writable anonymous memory, validated against the table of
 * layouts (docs/luajit-internals.md, "Finding the VM"). */
#ifndef LBP_DISCOVER_H
#define LBP_DISCOVER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "luajit/layout.h"
#include "base/sampler_types.h"

struct mem_reader;

struct lj_vm {
	uint64_t gg, g;			/* GG_State and global_State */
	const struct lj_layout *layout;
	uint64_t vm_lo, vm_hi;		/* interpreter code (lj_vm_asm_begin ...) */
	/* vm_hi ... vm_ffi_hi: lj_vm_ffi_call, the unwind entry after the
	 * interpreter's (src/vm_x64.dasc emit_asm_debug); vm_hi when none. */
	uint64_t vm_ffi_hi;
	/* The executable mapping holding the interpreter, and with it the
	 * VM's C code (lj_tab_new, lj_gc_step): C code outside it that Lua
	 * calls is named as a frame of its own. */
	uint64_t obj_lo, obj_hi;
	char elf_path[256];		/* the file holding the interpreter */
	uint64_t zone_tab;		/* jit.zone module table, 0 if not loaded */
};

enum discover_result {
	DISCOVER_FOUND,
	DISCOVER_NO_VM,		/* no lua_State signature anywhere */
	DISCOVER_UNRECOGNISED,	/* signatures, but no layout validated */
	DISCOVER_GONE,		/* the process went away */
};

struct discover_report {
	int nvms;
	int candidates;			/* signature hits */
	char first_refusal[200];	/* why the first candidate was refused */
	char unsupported[200];		/* a version recognised and refused, by name */
	uint64_t bytes_scanned;
	uint64_t bytes_untouched;	/* never touched (pagemap): not read */
	const char *cut;		/* why the scan stopped early, or NULL */
};

/* What one scan may cost.  A process decides how much address space it
 * reserves and touches: the scan reads only pages the process touched
 * (pagemap.h), at most max_bytes of them, for at most max_ns, and stops
 * at the next chunk once *stop is set.  A scan cut short keeps the VMs it
 * found and says why (rep->cut); the next rescan starts again. */
struct discover_budget {
	uint64_t max_bytes;		/* 0: DISCOVER_MAX_BYTES */
	uint64_t max_ns;		/* 0: DISCOVER_MAX_NS */
	volatile sig_atomic_t *stop;	/* NULL: none */
};
#define DISCOVER_MAX_BYTES	(2ull << 30)
#define DISCOVER_MAX_NS		2000000000ull

/* Scans pid for VMs; fills up to max entries of vms.  b NULL: the
 * defaults, no stop flag. */
enum discover_result discover_vms(pid_t pid, struct mem_reader *mem, struct lj_vm *vms,
				  int max, const struct discover_budget *b,
				  struct discover_report *rep);

/* The same over given maps (tests give a recorded image and its maps;
 * pid only names files through /proc/PID/map_files). */
struct proc_maps;
enum discover_result discover_vms_in(pid_t pid, const struct proc_maps *maps,
				     struct mem_reader *mem, struct lj_vm *vms, int max,
				     const struct discover_budget *b, struct discover_report *rep);

/* Why a scan found no VM, in a few words ("no LuaJIT VM found", the
 * refused version's name, ...), for a command's one line of error. */
const char *discover_why(enum discover_result res, const struct discover_report *rep);

/* A command's start on one process: opens PID's memory and finds its VMs.
 * Returns the open reader (mem_close it), or NULL after one line of error
 * saying why (memory unreadable, no VM, a refused version). */
struct mem_reader *discover_open(pid_t pid, struct lj_vm *vms, int max,
				 struct discover_report *rep);

/* Locates jit.zone's table (registry._LOADED["jit.zone"]); 0 when absent. */
uint64_t discover_zone_table(struct mem_reader *mem, const struct lj_vm *vm);

/* The per-VM slot handed to BPF. */
void discover_vm_slot(const struct lj_vm *vm, struct vm_slot *slot);

#endif
