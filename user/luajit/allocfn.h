/* SPDX-License-Identifier: MIT */
/* Where a VM's allocator lives: g->allocf read from the target, mapped to
 * the file and file offset a uprobe attaches to (-e alloc). */
#ifndef LBP_ALLOCFN_H
#define LBP_ALLOCFN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct lj_vm;
struct mem_reader;

struct allocfn_site {
	uint64_t addr;		/* g->allocf in the target */
	char path[320];		/* /proc/PID/root/... of the file mapping it */
	uint64_t offset;	/* file offset of the breakpoint */
	char placement[160];	/* where in the function, and why (for -v) */
};

/* Fills site for vm of pid; -1 with a one-line reason in err. */
int allocfn_locate(pid_t pid, struct mem_reader *mem, const struct lj_vm *vm,
		   struct allocfn_site *site, char *err, size_t errlen);

#endif
