/* SPDX-License-Identifier: MIT */
/* Reference paths as a pprof heap profile: one frame per path element
 * (named by the path up to it), root at the bottom; sample values inuse_objects (count) and inuse_space
 * (bytes), as Go's heap profiles name them, so `go tool pprof`, Pyroscope
 * and Parca show it as a heap profile.  The VM's buffers (string table,
 * string buffer) are samples of their own under "[VM buffers]", so the
 * total is the census's accounted bytes, which reconcile with gc.total.
 * gzip-compressed protobuf. */
#ifndef LBP_HEAP_PPROF_H
#define LBP_HEAP_PPROF_H

#include <stdint.h>
#include <stdio.h>

struct heap_census;
struct heap_paths;

/* The VM buffers' frames: "[VM buffers]", then each buffer's name, in
 * the order heap_vm_buffer_bytes gives them. */
#define HEAP_VM_BUFFERS	2
extern const char heap_vm_buffers_root[];
extern const char *const heap_vm_buffer_names[HEAP_VM_BUFFERS];
uint64_t heap_vm_buffer_bytes(const struct heap_census *c, int which);

/* Writes the profile; time_ns is when the heap was read.  0, or -1. */
int heap_pprof_write(FILE *f, const struct heap_paths *hp, const struct heap_census *c,
		     uint64_t time_ns);

#endif
