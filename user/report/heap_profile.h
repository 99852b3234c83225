/* A process's Lua heap as one gzipped pprof heap profile (heap_pprof.h):
 * what the continuous agent ships each interval next to the CPU profile
 * when --heap is given. */
#ifndef LBP_HEAP_PROFILE_H
#define LBP_HEAP_PROFILE_H

#include <stddef.h>

#include "base/strbuf.h"

struct lj_vm;
struct mem_reader;

struct heap_limits;

/* Walks the heap of the VM (found in a process whose memory mem reads)
 * into gz, replacing its content, within lim (target/heap_walk.h).  0, or
 * -1 with why; a walk that spent its budget gives the partial heap, and
 * says so in why with 1. */
int heap_profile_pprof(struct mem_reader *mem, const struct lj_vm *vm,
		       const struct heap_limits *lim, struct strbuf *gz, char *why,
		       size_t whylen);

#endif
