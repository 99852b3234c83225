/* SPDX-License-Identifier: MIT */
/* VM creation watch for -a: uretprobes on the VM-creation API
 * (luaL_newstate, lua_newstate) of LuaJIT objects, system wide, so a
 * process that creates a VM is reported within one poll. */
#ifndef LBP_VMWATCH_H
#define LBP_VMWATCH_H

#include <stdint.h>
#include <stddef.h>

#include "sample/verifier.h"
#include <sys/types.h>

struct vmwatch;

/* Loads the probe program (nothing attached yet); NULL with a reason. */
struct vmwatch *vmwatch_open(char *err, size_t errlen);
/* --check-kernel: loads the probes' program once, hands fn what the
 * verifier said, unloads; -1 with one line in err when refused. */
int vmwatch_check(verifier_fn fn, void *ctx, char *err, size_t errlen);
void vmwatch_close(struct vmwatch *w);

/* Probes the ELF file at path (reachable from here, e.g. through
 * /proc/PID/map_files) once per (dev, ino).  Returns the number of probes
 * attached now (0 when already watched or when it exports neither function),
 * -1 on error. */
int vmwatch_add_object(struct vmwatch *w, const char *path, uint64_t dev, uint64_t ino);

/* Calls fn for every process that created a VM since the last poll. */
typedef void (*vmwatch_fn)(void *ctx, pid_t pid);
int vmwatch_poll(struct vmwatch *w, vmwatch_fn fn, void *ctx);

#endif
