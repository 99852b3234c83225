/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Reads of the target's memory and of the blocks a sample read of it, and
 * the counter bump, used by every step of the walk.
 */
#ifndef LBP_ACCESS_BPF_H
#define LBP_ACCESS_BPF_H

#include "prelude.bpf.h"

/* Little-endian field of 4 or 8 bytes at a bounded offset of a block. */
static __always_inline __u64 field(const __u8 *blk, __u32 blk_size, __u32 off, __u32 size)
{
	__u64 v = 0;

	off &= 0x7ff;
	if (off > blk_size - 8)
		return 0;
	__builtin_memcpy(&v, blk + off, 8);
	return size == 8 ? v : (v & 0xffffffffull);
}

/* Whether global_State field [at, at + size) lies in the block a sample
 * read (struct lj_offsets g_blk). */
static __always_inline bool g_has(const struct lj_offsets *off, __u32 at, __u32 size)
{
	return at >= off->g_blk && at + size <= (__u32)off->g_blk + off->g_blk_len;
}

/* global_State field `at` (relative to g) from that block, 0 outside it. */
static __always_inline __u64 g_field(const struct lj_offsets *off, const __u8 *gblk,
				     __u32 at, __u32 size)
{
	if (!g_has(off, at, size))
		return 0;
	return field(gblk, LBP_G_BLOCK, at - off->g_blk, size);
}

static __always_inline void bump(struct counter_block *cb, __u32 counter)
{
	if (cb && counter < CNT__MAX)
		cb->n[counter]++;
}

/* Reads a GCRef/MRef: 8 bytes in GC64 builds, 4 otherwise. */
static __always_inline __u64 read_ref(const struct lj_offsets *off, __u64 addr)
{
	__u64 v = 0;

	bpf_probe_read_user(&v, off->gc64 ? 8 : 4, (void *)addr);
	return v;
}

static __always_inline __u64 read_u64(__u64 addr)
{
	__u64 v = 0;

	bpf_probe_read_user(&v, 8, (void *)addr);
	return v;
}

#endif
