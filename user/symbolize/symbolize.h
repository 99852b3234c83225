/* SPDX-License-Identifier: MIT */
/* Walked frames (prototype, C function or fast function + PC) to names, by
 * LuaJIT's own rules (src/lj_debug.c lj_debug_dumpstack, lj_debug_funcname).
 * Reads target memory through a
 * mem_reader; caches prototypes by address and revalidates them, since
 * prototypes are garbage-collected and their memory reused.
 */
#ifndef LBP_SYMBOLIZE_H
#define LBP_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "model/profile.h"
#include "base/sampler_types.h"

struct lj_layout;
struct mem_reader;
struct mem_region;
struct vmdef;

struct symbolizer;

/* vd may be NULL: fast functions then print as [builtin#N]. */
struct symbolizer *sym_new(struct mem_reader *mem, const struct lj_layout *lay,
			   const struct vmdef *vd);
void sym_free(struct symbolizer *s);

/* The VM's global_State: a prototype that is still the newest GC object
 * may be under construction (its header half old, half new) and is not
 * trusted until it is not.  0 (the default) skips that check. */
void sym_set_vm(struct symbolizer *s, uint64_t g);

/* The target's pid: C functions are then named from its tables, ELF files
 * and maps (cfunc_names.h) instead of printing as addresses. */
void sym_set_pid(struct symbolizer *s, pid_t pid);

/* Starts a new drain: cached prototypes are revalidated on next use. */
void sym_next_epoch(struct symbolizer *s);

/* The target exited: cached prototypes are used as they are, since its
 * memory can no longer be reused (and can no longer be read). */
void sym_freeze(struct symbolizer *s);

/* After sym_stack: a leaf SYM_NATIVE (C code outside the VM that Lua
 * called) stays above a Lua frame (C called from a trace), replaces the
 * frame of an FFI call the interpreter made when it is the C function
 * called (FRAME_CALLEE), and goes inside any other C function's frame;
 * returns the new count. */
uint32_t sym_leaf(struct symbolizer *s, const struct lua_frame *frames, struct frame_sym *out,
		  uint32_t n);

/* Symbolizes n walked frames (top first) into out[0..n).  The strings in
 * out stay valid until the next sym_next_epoch. */
void sym_stack(struct symbolizer *s, const struct lua_frame *frames, uint32_t n,
	       struct frame_sym *out);

/* Reads and caches the prototype at pt, which a sample saw with
 * fingerprint fp, with everything its frames need (prefetch.c): its later
 * samples are then named from the cache even once it is freed.  copy (n
 * spans, may be 0) is memory the sampler copied while the prototype ran,
 * read instead of the process where it covers a read.  -1 when neither
 * holds that prototype. */
int sym_prefetch(struct symbolizer *s, uint64_t pt, uint32_t fp, const struct mem_region *copy,
		 size_t ncopy);

/* "chunk:line" where trace traceno of the VM at g starts, into buf;
 * -1 when the trace is gone. */
int sym_trace_start(struct symbolizer *s, uint64_t g, int traceno, char *buf, size_t len);

/* The Lua functions trace traceno of the VM at g inlined without a
 * snapshot of their own (jit/jinline.h), as "chunk:name" ('F' keys),
 * comma-separated, into buf: their time is counted in the frames around
 * them.  Returns how many (0: none), -1 when the trace is gone. */
int sym_trace_inlined(struct symbolizer *s, uint64_t g, int traceno, char *buf, size_t len);

/* Where the instruction at pc of prototype pt is, formatted as frame_put
 * letter fmt gives it ('l': "chunk:line", 'f': the function); -1 when pt
 * is not a valid prototype. */
int sym_pc_location(struct symbolizer *s, uint64_t pt, uint64_t pc, char fmt, char *buf,
		    size_t len);

/* The name of the fast function fn as jit/v.lua prints it (its vmdef.lua
 * name, else "[builtin#N]"); -1 when fn is not a fast function. */
int sym_func_ffname(struct symbolizer *s, uint64_t fn, char *buf, size_t len);

/* Frames that failed validation since the symbolizer was created. */
uint64_t sym_unknown_count(const struct symbolizer *s);

#endif
