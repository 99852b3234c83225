/* SPDX-License-Identifier: MIT */
/* /proc/PID/maps, parsed. */
#ifndef LBP_PROCMAPS_H
#define LBP_PROCMAPS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct map_entry {
	uint64_t start, end, offset;
	uint64_t inode;
	bool r, w, x;
	char path[256];		/* "" for anonymous memory, "[heap]" ... */
};

struct proc_maps {
	struct map_entry *e;
	int n;
};

/* Reads the maps of pid; -1 with errno when the process is gone. */
int procmaps_read(pid_t pid, struct proc_maps *maps);
void procmaps_free(struct proc_maps *maps);

/* The mapping containing addr, or NULL. */
const struct map_entry *procmaps_find(const struct proc_maps *maps, uint64_t addr);

/* Whether the entry is a file mapping (not anonymous, heap, stack, vdso). */
bool map_is_file(const struct map_entry *e);

#endif
