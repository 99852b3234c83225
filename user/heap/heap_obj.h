/* SPDX-License-Identifier: MIT */
/* The LuaJIT heap, one object at a time: the types the GC knows, and a
 * decoder per type (heap_tab.c, heap_str.c, heap_func.c, heap_thread.c,
 * heap_misc.c) that checks an object's header read from target memory
 * and computes its size the way the GC's free function does.  A decoder
 * refuses (returns -1) anything out of bounds: the target keeps running,
 * and an object freed and reused under the walker must not be believed. */
#ifndef LBP_HEAP_OBJ_H
#define LBP_HEAP_OBJ_H

#include <stdbool.h>
#include <stdint.h>

struct heap_mem;
#include "lj_consts.h"

struct lj_layout;

/* GCHeader.gct, the complement of the object's TValue type tag. */
enum heap_type {
	HT_STR = LJ_GCT(LJ_TSTR), HT_UPVAL, HT_THREAD, HT_PROTO, HT_FUNC, HT_TRACE, HT_CDATA,
	HT_TAB, HT_UDATA,
	HT_MAX
};

/* Bytes of header read for any object before its decoder runs: enough
 * for every fixed field a decoder uses (lua_State's stacksize, the last,
 * sits at 88 on GC64). */
#define HEAP_HDR_BYTES	96

/* What a decoder finds in one object. */
struct heap_obj {
	uint64_t addr;
	uint64_t next;		/* GCHeader.nextgc */
	uint64_t bytes;		/* the object's own allocation */
	uint64_t bytes_a;	/* table: separate array part; thread: stack */
	uint64_t bytes_h;	/* table: hash part */
	uint64_t at_a, at_h;	/* where those parts are when separate, else 0 */
	uint8_t type;		/* enum heap_type */
	uint8_t sub;		/* func: 1 for a C function; cdata: 1 for a vector */
	uint8_t marked;
};

/* What every decoder needs: the layout, the reader and the global state. */
struct heap_ctx {
	const struct lj_layout *lay;
	struct heap_mem *mem;
	uint64_t g;
	uint64_t cts_tab;	/* CTState.tab, 0 without FFI */
	uint32_t cts_top;	/* CTState.top: ids below it are valid */
	uint64_t plausible;	/* bytes the VM can really hold: no object nor
				 * part claiming more is believed (heap_walk.c) */
};

/* Reads a GCRef/MRef of the layout's width at addr (0 when unreadable). */
uint64_t heap_ref(const struct heap_ctx *c, uint64_t addr);
/* The same from a header already read. */
uint64_t heap_ref_at(const struct heap_ctx *c, const uint8_t *hdr, unsigned off);
uint32_t heap_u32_at(const uint8_t *hdr, unsigned off);
uint16_t heap_u16_at(const uint8_t *hdr, unsigned off);
/* Could p be a GC object: non-NULL, 8-byte aligned, in user space (the
 * low 4 GiB without GC64). */
bool heap_ptr_ok(const struct heap_ctx *c, uint64_t p);
/* Width of a reference: 8 with GC64, else 4. */
unsigned heap_refsize(const struct heap_ctx *c);

/* Decodes the object at addr (hdr: HEAP_HDR_BYTES read there).  Fills o;
 * -1 when the header is not a plausible object. */
int heap_obj_decode(const struct heap_ctx *c, uint64_t addr, const uint8_t *hdr,
		    struct heap_obj *o);

/* Per-type decoders, called by heap_obj_decode with type, next and addr set. */
int heap_tab_decode(const struct heap_ctx *c, const uint8_t *hdr, struct heap_obj *o);
int heap_str_decode(const struct heap_ctx *c, const uint8_t *hdr, struct heap_obj *o);
int heap_func_decode(const struct heap_ctx *c, const uint8_t *hdr, struct heap_obj *o);
int heap_proto_decode(const struct heap_ctx *c, const uint8_t *hdr, struct heap_obj *o);
int heap_upval_decode(const struct heap_ctx *c, const uint8_t *hdr, struct heap_obj *o);
int heap_thread_decode(const struct heap_ctx *c, const uint8_t *hdr, struct heap_obj *o);
int heap_udata_decode(const struct heap_ctx *c, const uint8_t *hdr, struct heap_obj *o);
int heap_cdata_decode(const struct heap_ctx *c, const uint8_t *hdr, struct heap_obj *o);
int heap_trace_decode(const struct heap_ctx *c, const uint8_t *hdr, struct heap_obj *o);

/* A short name of a type ("table", "string", ...). */
const char *heap_type_name(int type);

#endif
