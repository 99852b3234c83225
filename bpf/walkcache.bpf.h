/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Per-CPU caches of what a Lua frame costs to resolve, for what cannot
 * change while the memory the walker reads each time says it has not.
 *
 * Per Lua frame the walker always reads, at the sample instant:
 * - the function's header (ffid, its prototype): one read that also tells
 *   a function from other objects (the GC type);
 * - its prototype's header span (type, bytecode size, chunk name, first
 *   line, line count), from which the fingerprint (sampler.h) is made.
 * What it takes from the caches instead of memory:
 * - the chunk name's string id: from the prototype cache while the header
 *   span reads exactly as when the id was read and the VM has made and
 *   freed no string since (string epoch), so that the string at that
 *   address is the same string;
 * - the caller's frame size (the A operand of the CALL before the return
 *   PC): from the call-site cache (tgid, return PC -> A, the caller's
 *   prototype and fingerprint), trusted only when the slot it leads to
 *   holds a function whose header, read now, names the prototype
 *   recorded, with the return PC in its bytecode and the recorded
 *   fingerprint; those two reads are the caller frame's own, kept for it.
 *
 * The string epoch comes with the sample's global_State block (struct
 * lj_offsets g_blk): StrInternState num and id (src/lj_obj.h).  Every
 * string the VM makes advances id (src/lj_str.c lj_str_alloc), and every
 * one made or freed moves num; with
 * LUAJIT_SECURITY_STRID=3 ids are random and only num moves.
 * No cache maps a function to its prototype: nothing the VM keeps tells
 * cheaply that a function was freed and another made at its address (a
 * hash of the GC's state repeats under a periodic load, and a freed
 * prototype's header can survive in memory a live prototype's frame PC
 * points into), so the header is read each time.
 * docs/hardening.md ("Memory reuse") says what this does to the
 * fingerprint's protection.
 *
 * Direct-mapped, one PERCPU_ARRAY element per slot: the verifier inlines
 * each lookup into a few loads, and a collision only evicts.  Included by
 * walk.bpf.h.
 */
#ifndef LBP_WALKCACHE_BPF_H
#define LBP_WALKCACHE_BPF_H

#include "prelude.bpf.h"

#define PT_CACHE_SLOTS		1024	/* powers of two */
#define CALL_CACHE_SLOTS	1024
#define PT_WORDS		16	/* prototype header words read per frame (GC64: 10) */

struct pt_cache_ent {
	__u64 pt;
	__u64 str;		/* chunk name GCstr */
	__u64 lines;		/* firstline | numline << 32 */
	__u64 strep;		/* string epoch when sid was read */
	__u32 tgid;
	__u32 sid;
	__u32 fp;
	__u32 pad;
};

struct call_cache_ent {
	__u64 link;		/* return PC into the caller */
	__u64 pt;		/* the caller's prototype */
	__u32 tgid;
	__u32 fp;		/* and its fingerprint */
	__u32 a;		/* the CALL's A operand */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PT_CACHE_SLOTS);
	__type(key, __u32);
	__type(value, struct pt_cache_ent);
} pt_cache SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CALL_CACHE_SLOTS);
	__type(key, __u32);
	__type(value, struct call_cache_ent);
} call_cache SEC(".maps");

/* 0: every lookup below misses, and the verifier drops the cached paths
 * (for before/after measurements: the loader sets it from
 * collector_opts.no_walk_caches). */
const volatile __u32 walk_caches_on = 1;

static __always_inline __u32 cache_slot(__u64 addr, __u32 tgid, __u32 slots)
{
	__u64 h = (addr ^ ((__u64)tgid << 47)) * 0x9e3779b97f4a7c15ull;

	return (__u32)(h >> 40) & (slots - 1);
}

static __always_inline struct pt_cache_ent *pt_cache_at(__u64 pt, __u32 tgid)
{
	__u32 idx = cache_slot(pt, tgid, PT_CACHE_SLOTS);

	return walk_caches_on ? bpf_map_lookup_elem(&pt_cache, &idx) : NULL;
}

static __always_inline struct call_cache_ent *call_cache_at(__u64 link, __u32 tgid)
{
	__u32 idx = cache_slot(link, tgid, CALL_CACHE_SLOTS);

	return walk_caches_on ? bpf_map_lookup_elem(&call_cache, &idx) : NULL;
}

#endif
