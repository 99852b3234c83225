/* SPDX-License-Identifier: MIT */
/* Process snapshots: the memory a symbolization of real stacks read, with
 * those stacks, in one file.  Written by tests/fuzz/snapshot from a live
 * LuaJIT process; read by the fuzz targets (and mutated by libFuzzer, so
 * the reader trusts nothing).
 *
 * Layout, little-endian, no padding:
 *   "LBPS" u8 version(2) u8 layout u8 nstacks u8 nregions u64 gg u64 g
 *   nstacks x { u16 nframes  i16 vmstate  nframes x { u64 id  u32 pc_off  u32 fp } }
 *   nregions x { u64 addr  u32 len  len bytes }
 * layout indexes layout_at() modulo layout_count().
 */
#ifndef LBP_SNAPFMT_H
#define LBP_SNAPFMT_H

#include <stddef.h>
#include <stdint.h>

#include "proc/memory.h"
#include "base/sampler_types.h"

#define SNAP_MAX_STACKS		64
#define SNAP_MAX_REGIONS	255

struct snap_stack {
	uint32_t nframes;
	int32_t vmstate;
	struct lua_frame frames[LBP_MAX_FRAMES];
};

struct snapshot {
	int layout;
	uint64_t gg, g;
	int nstacks, nregions;
	struct snap_stack stacks[SNAP_MAX_STACKS];
	struct mem_region regions[SNAP_MAX_REGIONS];	/* point into the input */
};

/* Parses as much of data as is well formed (a truncated tail is dropped);
 * -1 when not even the header is there. */
int snap_parse(const uint8_t *data, size_t len, struct snapshot *s);

/* Appends the encoding of s to buf (malloc'd, *len bytes); -1 on OOM. */
int snap_encode(const struct snapshot *s, uint8_t **buf, size_t *len);

#endif
