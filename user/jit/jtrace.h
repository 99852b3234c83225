/* SPDX-License-Identifier: MIT */
/* One compiled trace (src/lj_jit.h GCtrace) read from target memory. */
#ifndef LBP_JTRACE_H
#define LBP_JTRACE_H

#include <stdint.h>

struct lj_layout;
struct mem_reader;
struct jstate;

/* src/lj_jit.h TraceLink */
enum jtrace_link {
	JLINK_NONE, JLINK_ROOT, JLINK_LOOP, JLINK_TAILREC, JLINK_UPREC,
	JLINK_DOWNREC, JLINK_INTERP, JLINK_RETURN, JLINK_STITCH, JLINK__MAX
};

struct jtrace {
	uint16_t traceno, link, root, nextroot, nextside, nchild;
	uint8_t linktype;
	uint16_t nsnap;
	uint32_t nsnapmap;
	uint64_t snap, snapmap;		/* SnapShot[nsnap], SnapEntry[nsnapmap] */
	uint64_t mcode;			/* its machine code, szmcode bytes */
	uint32_t szmcode;
	uint32_t nins;
	uint32_t nk;			/* lowest constant: ir[nk .. REF_BIAS) */
	uint64_t ir;			/* IRIns *, biased: ir[ref] for any IRRef */
	uint64_t startpt, startpc;	/* GCproto and the PC it starts at */
	uint32_t startins;		/* the original instruction there */
};

/* Link type as jit.util.traceinfo names it ("loop", "stitch", ...). */
const char *jtrace_link_name(unsigned linktype);

/* Reads trace n of the VM whose J is js; 1 when the slot is empty, 0 when
 * read, -1 when unreadable or inconsistent (traceno != n). */
int jtrace_read(struct mem_reader *mem, const struct lj_layout *lay,
		const struct jstate *js, unsigned n, struct jtrace *out);

#endif
