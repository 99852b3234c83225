/* SPDX-License-Identifier: MIT */
/* The user-space side of the BPF shim (shim/bpf/bpf_helpers.h): where the
 * walker's reads of target memory go, and the reset between samples. */
#ifndef LBP_WALKER_SHIM_H
#define LBP_WALKER_SHIM_H

#include <stddef.h>
#include <stdint.h>

/* Reads len bytes of target memory at addr into dst: 0, or -1 when any
 * of them is unreadable. */
typedef int (*shim_read_fn)(void *ctx, uint64_t addr, void *dst, size_t len);

void shim_set_reader(shim_read_fn fn, void *ctx);

/* Empties every map and the clock, as a freshly loaded program has them,
 * and sets the thread bpf_get_current_pid_tgid names. */
void shim_reset(uint32_t tgid, uint32_t tid);

/* Reads the walker made since shim_reset, and prototype announcements sent. */
uint64_t shim_reads(void);
uint64_t shim_ring_records(void);

#endif
