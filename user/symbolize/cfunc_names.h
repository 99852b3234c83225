/* SPDX-License-Identifier: MIT */
/* One stable name per C function of a process: the name Lua code knows it
 * by (from the VM's tables), else its ELF symbol, else "file+0xVADDR";
 * never an absolute address.  Also the file mapping that holds it, for
 * pprof.  Names are cached per address for the life of the process.
 */
#ifndef LBP_CFUNC_NAMES_H
#define LBP_CFUNC_NAMES_H

#include <stdint.h>
#include <sys/types.h>

#include "model/profile.h"

struct lj_layout;
struct mem_reader;

struct cfunc_names;

struct cfunc_names *cfn_new(pid_t pid, struct mem_reader *mem, const struct lj_layout *lay,
			    uint64_t g);
void cfn_free(struct cfunc_names *c);

/* A new epoch (about a second): a function not found in the VM's tables
 * may trigger one more walk of them (with back-off). */
void cfn_next_epoch(struct cfunc_names *c);

/* Sets f->cname and f->map_* for the lua_CFunction at f->cfunc.  The
 * strings stay valid as long as c. */
void cfn_name(struct cfunc_names *c, struct frame_sym *f);

/* Names a C or fast-function frame (others are left alone) and drops its
 * call-site name, which depends on the caller, when it has its own.  c may
 * be NULL (no process): fast functions are still named. */
void cfn_name_frame(struct cfunc_names *c, const struct lj_layout *lay, struct frame_sym *f);

/* The name of fast function ffid ("string.gsub"): from the built-in table
 * of lay's family that agrees with the names in the VM's tables (builds
 * without the JIT number their functions differently), else from the VM's
 * tables; NULL when neither knows it.  c may be NULL: the built-in table
 * of a build with the JIT then. */
const char *cfn_ffname(struct cfunc_names *c, const struct lj_layout *lay, int ffid);

#endif
