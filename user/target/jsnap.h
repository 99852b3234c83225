/* The exits of one compiled trace: its snapshots (src/lj_jit.h SnapShot)
 * with the bytecode PC each one returns to and how often it was taken
 * (src/lj_trace.c trace_hotside counts up to J->param[hotexit], then
 * tries a side trace; SNAPCOUNT_DONE once one is linked). */
#ifndef LBP_JSNAP_H
#define LBP_JSNAP_H

#include <stddef.h>
#include <stdint.h>

struct lj_layout;
struct mem_reader;
struct jtrace;

#define JSNAP_MAX	1024	/* snapshots per trace read (maxsnap is 500) */
#define JSNAP_MAP_MAX	65536	/* snapshot map entries read per trace */

struct jexit {
	uint16_t exitno;	/* the snapshot's index: -jv's "start T/E" */
	uint8_t count;		/* exits taken, saturating at the side trace */
	uint64_t pc;		/* bytecode the interpreter resumes at */
};

/* Decodes nsnap SnapShots (snaps, lay->sizeof_snap each) against their
 * map of nmap 32-bit entries.  The PC follows each snapshot's entries:
 * a uint64_t (pc << 8 | base) where frames take two slots (GC64 builds,
 * LJ_FR2), else one 32-bit entry (src/lj_snap.c snapshot_framelinks).
 * Returns the exits written (at most max), -1 when inconsistent. */
int jsnap_parse(const struct lj_layout *lay, const uint8_t *snaps, size_t nsnap,
		const uint8_t *map, size_t nmap, struct jexit *out, size_t max);

/* Reads tr's snapshots and map from target memory and decodes them. */
int jsnap_read(struct mem_reader *mem, const struct lj_layout *lay, const struct jtrace *tr,
	       struct jexit *out, size_t max);

/* A trace and its exits, as jsnap_parent looks at them. */
struct jsnap_trace {
	uint16_t traceno, root;		/* root: 0 for a root trace */
	uint64_t startpc;
	const struct jexit *exits;
	int nexits;
};

enum jsnap_parent_found { JSNAP_NO_PARENT, JSNAP_PARENT, JSNAP_PARENT_AMBIGUOUS };

/* GCtrace keeps a side trace's root but not its parent and exit.  A side
 * trace starts at the PC of its parent's exit, the parent is its root or
 * one of the root's other side traces, and that exit's count became
 * SNAPCOUNT_DONE when the side trace was linked (src/lj_trace.c
 * trace_stop).  Finds that exit for all[side]: JSNAP_PARENT when one
 * exit fits (*parent, *exitno set), JSNAP_PARENT_AMBIGUOUS when several
 * do, JSNAP_NO_PARENT when none (a root trace, or a parent flushed). */
enum jsnap_parent_found jsnap_parent(const struct lj_layout *lay, const struct jsnap_trace *all,
				     size_t n, size_t side, uint16_t *parent, uint16_t *exitno);

#endif
