// SPDX-License-Identifier: MIT
/* The VM's allocator as a uprobe site: the function pointer in
 * global_State (src/lj_obj.h allocf; lj_alloc_f of src/lj_alloc.c unless
 * the host passed its own to lua_newstate), its executable file mapping
 * in /proc/PID/maps, and the file offset of the address in it. */
#include "luajit/allocfn.h"

#include <stdio.h>
#include <string.h>

#include "luajit/arch.h"
#include "luajit/discover.h"
#include "luajit/layout.h"
#include "proc/memory.h"
#include "proc/procmaps.h"

/* Where to put the breakpoint: lj_alloc_f as compilers emit it starts
 * with `test %rcx,%rcx; je free` (is nsize 0?), after an `endbr64` in
 * builds with control-flow protection (-fcf-protection, Debian's and
 * Ubuntu's default for C; lj_alloc_f is called through a pointer, so it
 * gets one).  The kernel cannot emulate a test nor an endbr64 and
 * single-steps them out of line (a second trap per call); it emulates a
 * conditional jump.  endbr64 and a register-register test only set flags
 * (or nothing), so at the jump every register, the stack pointer and the
 * arguments are as at entry, at about half the cost per call
 * (docs/alloc.md).  Anything else: the entry, and -v says so. */
static uint64_t probe_point(struct mem_reader *mem, uint64_t fn, char *note, size_t len)
{
	static const uint8_t endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	uint8_t b[9];
	unsigned at = 0;

	if (!ARCH_ALLOC_PROBE_PAST_TEST) {
		snprintf(note, len, "at its entry");
		return fn;
	}
	if (mem_read(mem, fn, b, sizeof(b))) {
		snprintf(note, len, "at its entry: its first bytes are unreadable");
		return fn;
	}
	if (!memcmp(b, endbr64, sizeof(endbr64)))
		at = sizeof(endbr64);
	/* REX.W (+B/R) 85 /r with mod 11: test r64, r64; then jcc rel8. */
	if ((b[at] & 0xfa) == 0x48 && b[at + 1] == 0x85 && (b[at + 2] & 0xc0) == 0xc0 &&
	    b[at + 3] >= 0x70 && b[at + 3] <= 0x7f) {
		snprintf(note, len, "on the jump after its first test%s (+%u)",
			 at ? " and endbr64" : "", at + 3);
		return fn + at + 3;
	}
	snprintf(note, len, "at its entry, a second trap per call: its first bytes "
		 "%02x %02x %02x %02x %02x %02x %02x are not [endbr64] test r64,r64; jcc",
		 b[0], b[1], b[2], b[3], b[4], b[5], b[6]);
	return fn;
}

int allocfn_locate(pid_t pid, struct mem_reader *mem, const struct lj_vm *vm,
		   struct allocfn_site *site, char *err, size_t errlen)
{
	const struct map_entry *e;
	struct proc_maps maps;
	uint64_t fn = 0;

	memset(site, 0, sizeof(*site));
	if (!vm->layout || !vm->layout->has_allocf) {
		snprintf(err, errlen, "this LuaJIT variant's allocator is not known");
		return -1;
	}
	if (mem_read(mem, vm->g + vm->layout->g_allocf, &fn, sizeof(fn)) || !fn) {
		snprintf(err, errlen, "cannot read the VM's allocator pointer");
		return -1;
	}
	if (procmaps_read(pid, &maps)) {
		snprintf(err, errlen, "cannot read /proc/%d/maps", (int)pid);
		return -1;
	}
	e = procmaps_find(&maps, fn);
	if (!e || !e->x || !map_is_file(e)) {
		snprintf(err, errlen, "the VM's allocator at 0x%llx is not in an executable file mapping",
			 (unsigned long long)fn);
		procmaps_free(&maps);
		return -1;
	}
	site->addr = fn;
	fn = probe_point(mem, fn, site->placement, sizeof(site->placement));
	if (fn >= e->end)
		fn = site->addr;
	site->offset = fn - e->start + e->offset;
	/* The file as the target sees it, through its own root. */
	snprintf(site->path, sizeof(site->path), "/proc/%d/root%s", (int)pid, e->path);
	procmaps_free(&maps);
	return 0;
}
