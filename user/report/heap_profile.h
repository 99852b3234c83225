/* SPDX-License-Identifier: MIT */
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
struct otlp_request;
struct otlp_resource;

/* Walks the heap of the VM (found in a process whose memory mem reads)
 * once, within lim (heap/heap_walk.h), into gz as pprof (replacing its
 * content; NULL: none) and into the OTLP request r as an inuse_space
 * profile of res (NULL: none), both stamped with the same time.  0, or
 * -1 with why; a walk that spent its budget gives the partial heap, and
 * says so in why with 1. */
int heap_profile(struct mem_reader *mem, const struct lj_vm *vm, const struct heap_limits *lim,
		 struct strbuf *gz, struct otlp_request *r, const struct otlp_resource *res,
		 char *why, size_t whylen);

#endif
