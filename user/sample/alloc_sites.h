/* SPDX-License-Identifier: MIT */
/* -e alloc: the allocator uprobes of a target's VMs. */
#ifndef LBP_ALLOC_SITES_H
#define LBP_ALLOC_SITES_H

#include <sys/types.h>

struct collector;
struct lj_vm;
struct mem_reader;

/* Attaches the collector's allocation sampler to the allocator of each of
 * pid's VMs (nothing when the collector samples CPU time); a VM whose
 * allocator cannot be probed is one warning. */
void alloc_sites_attach(struct collector *col, pid_t pid, struct mem_reader *mem,
			const struct lj_vm *vms, int n);

#endif
