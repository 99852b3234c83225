/* SPDX-License-Identifier: MIT */
/* Walker snapshots (tests/walker/snapshots/NAME.snap): one sample of a
 * real process, its registers and every byte of its memory the BPF
 * walker read, as tests/walker/record took it from a stopped thread.
 * What the walk must give is beside it, in NAME.expect (walkexp.h).
 *
 * Layout, little-endian, no padding:
 *   "LBPW" u32 version(1) char layout[32] u32 tgid u32 tid
 *   u64 ip sp base pc rb disp        x86-64 registers by role (struct uregs)
 *   u64 g zone_tab vm_lo vm_hi obj_lo obj_hi   the VM (struct vm_slot)
 *   u32 nregions  nregions x { u64 addr  u32 len  len bytes }, by address
 * The reader trusts nothing: a bad file is refused, never half read. */
#ifndef LBP_WALKSNAP_H
#define LBP_WALKSNAP_H

#include <stddef.h>
#include <stdint.h>

#define WALKSNAP_MAX_REGIONS	4096
#define WALKSNAP_MAX_BYTES	(16u << 20)

struct walksnap_region {
	uint64_t addr;
	uint32_t len;
	uint8_t *data;
};

struct walksnap {
	char layout[32];		/* struct lj_layout name, NUL-terminated */
	uint32_t tgid, tid;
	uint64_t ip, sp, base, pc, rb, disp;
	uint64_t g, zone_tab, vm_lo, vm_hi, obj_lo, obj_hi;
	uint32_t nregions;
	struct walksnap_region *regions;
};

/* 0, or -1 when buf is no well-formed snapshot (s then holds nothing). */
int walksnap_parse(const uint8_t *buf, size_t len, struct walksnap *s);
/* 0, or -1 with a reason in err. */
int walksnap_load(const char *path, struct walksnap *s, char *err, size_t errlen);
int walksnap_save(const char *path, const struct walksnap *s);
void walksnap_free(struct walksnap *s);

/* shim.h reader over s's regions: a read must lie inside one region. */
int walksnap_read(void *s, uint64_t addr, void *dst, size_t len);



struct walker_in;

/* The walker's input from s for the x86-64 build (arm64 0), or for the
 * arm64 one (1): the same registers by role, with arm64's GL for
 * x86-64's DISPATCH (less g2disp); the VM's offsets from the layout table by name.
 * -1 when the layout is unknown. */
int walksnap_input(const struct walksnap *s, int arm64, struct walker_in *in);
#endif
