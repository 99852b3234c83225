/* SPDX-License-Identifier: MIT */
/* Fast-function names from the target's own jit/vmdef.lua: the ids differ
 * between upstream and OpenResty builds. */
#ifndef LBP_VMDEF_H
#define LBP_VMDEF_H

#include <stdbool.h>
#include <sys/types.h>

struct vmdef {
	char **ffnames;		/* ffnames[ffid], [0] = "Lua" */
	int nff;
	char path[512];
};

/* Parses the ffnames table of a vmdef.lua file. */
int vmdef_load(const char *path, struct vmdef *vd);
void vmdef_free(struct vmdef *vd);

/* Name for ffid, or NULL. */
const char *vmdef_ffname(const struct vmdef *vd, int ffid);

/* Finds the vmdef.lua matching a LuaJIT ELF (binary or library) mapped by
 * pid: <prefix>/share/luajit-<version>/jit/vmdef.lua, seen through
 * /proc/PID/root.  The OpenResty table names thread.exdata; the upstream
 * one does not: a file of the other family is rejected. */
int vmdef_find(pid_t pid, const char *elf_path, bool openresty, struct vmdef *vd);

#endif
