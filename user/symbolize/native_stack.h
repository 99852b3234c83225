/* SPDX-License-Identifier: MIT */
/* --native: a sample's whole stack, native and Lua frames interleaved.
 *
 * The native part is unwound by CFI over the stack the sampler copied
 * (native/unwind.h); where it reaches the VM (interpreter or JIT code,
 * which have no usable CFI), the VM activation's C frame (L->cframe and
 * its chain, src/lj_frame.h) says where the C caller resumes, and the
 * activation's Lua frames go there.  docs/native.md has the details. */
#ifndef LBP_NATIVE_STACK_H
#define LBP_NATIVE_STACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/sampler_types.h"

struct frame_sym;
struct nmods;
struct profile;

/* A VM of the process: its interpreter's code and C frame layout. */
struct native_vm {
	uint64_t lo, hi;		/* lj_vm_asm_begin ... */
	uint16_t cframe_prev, cframe_size;
	/* hi ... ffi_hi: lj_vm_ffi_call, crossed like the interpreter: its
	 * CFI (CFA = rbp + 16 throughout) is wrong in its prologue and
	 * epilogue. */
	uint64_t ffi_hi;
};

struct native_in {
	const struct native_sample *rec;
	/* The Lua frames, top first, interned; entry[i]: frame i begins a
	 * VM activation (FRAME_ENTRY). */
	const struct frame_sym *const *lua;
	const bool *entry;
	uint32_t nlua;
	/* The walk reached the Lua stack's bottom: no frame is missing
	 * below the ones given. */
	bool complete;
	const struct native_vm *vms;
	int nvms;
};

/* Where a native unwind ended. */
enum native_end {
	NATIVE_BOTTOM,		/* the thread's first frame (CFI: no caller) */
	NATIVE_CUT,		/* no CFI, or the copy ended: a [unknown] frame follows */
	NATIVE_TOO_DEEP,	/* out of room in out[] */
};

/* Names the native frame *f for code address pc (a return address
 * unless top): its ELF symbol, else "file+0xOFFSET" (in buf[len]), else
 * "[C]" (map_file NULL). */
void native_name(struct nmods *m, uint64_t pc, bool top, struct frame_sym *f, char *buf,
		 size_t len);

/* The merged stack of in into out[0..cap), top first, frames interned in
 * p; returns the number of frames and how the unwind ended in *end. */
uint32_t native_merge(struct nmods *m, struct profile *p, const struct native_in *in,
		      const struct frame_sym **out, uint32_t cap, enum native_end *end);

#endif
