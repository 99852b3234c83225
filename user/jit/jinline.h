/* SPDX-License-Identifier: MIT */
/* The Lua functions a compiled trace inlined without a snapshot of their
 * own.  LuaJIT specialises every Lua call it inlines to the closure being
 * called: the function becomes an IR_KGC constant of type IRT_FUNC (src/
 * lj_record.c rec_call_specialize, and rec_upvalue's constified
 * upvalues).  A function that got a snapshot inside it is a frame of that
 * snapshot (the sampler rebuilds it); one that only computes leaves no
 * mark in the machine code and its time shows in its caller's frame.
 * Those are the function constants that no snapshot frames. */
#ifndef LBP_JINLINE_H
#define LBP_JINLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lj_layout;
struct mem_reader;
struct jtrace;

#define JINLINE_KMAX	8192	/* IR constants read per trace (32768 at most) */
#define JINLINE_MAX	64	/* function constants kept per trace */

/* A function constant of a trace, and whether a snapshot frames it. */
struct jinline_k {
	uint64_t fn;		/* GCfunc */
	bool framed;		/* the function of a frame in some snapshot */
};

/* Pure.  kir holds the trace's constants ir[nk .. REF_BIAS) (8 bytes an
 * instruction), snaps nsnap SnapShots (lay->sizeof_snap each), map nmap
 * SnapEntries.  Writes each distinct function constant once (at most max)
 * with framed set when a snapshot entry is a frame's function: slot 0
 * (the root's, replaced), a SNAP_FRAME entry's reference (non-GC64), or
 * the entry one slot below a SNAP_FRAME entry (GC64, LJ_FR2).  Returns
 * the count, -1 when the snapshots do not fit the map. */
int jinline_parse(const struct lj_layout *lay, const uint8_t *kir, uint32_t nk,
		  const uint8_t *snaps, size_t nsnap, const uint8_t *map, size_t nmap,
		  struct jinline_k *out, size_t max);

/* An inlined function without a snapshot: its closure and prototype. */
struct jinline_fn {
	uint64_t fn, pt;
};

/* Reads trace tr's constants and snapshots and gives the Lua functions it
 * inlined without a snapshot: function constants not framed, whose
 * prototype is neither the trace's start nor a framed function's (their
 * time is that frame's anyway).  framed[] (at most maxf, may be NULL)
 * gets the framed Lua closures, *nframed their count.  Returns the count
 * (at most max), -1 when unreadable. */
int jinline_read(struct mem_reader *mem, const struct lj_layout *lay, const struct jtrace *tr,
		 struct jinline_fn *out, size_t max, struct jinline_fn *framed, size_t maxf,
		 size_t *nframed);

#endif
