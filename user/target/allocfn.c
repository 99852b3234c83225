/* The VM's allocator as a uprobe site: the function pointer in
 * global_State (src/lj_obj.h allocf; lj_alloc_f of src/lj_alloc.c unless
 * the host passed its own to lua_newstate), its executable file mapping
 * in /proc/PID/maps, and the file offset of the address in it. */
#include "target/allocfn.h"

#include <stdio.h>
#include <string.h>

#include "target/discover.h"
#include "target/layout.h"
#include "target/memory.h"
#include "target/procmaps.h"

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
	site->offset = fn - e->start + e->offset;
	/* The file as the target sees it, through its own root. */
	snprintf(site->path, sizeof(site->path), "/proc/%d/root%s", (int)pid, e->path);
	procmaps_free(&maps);
	return 0;
}
