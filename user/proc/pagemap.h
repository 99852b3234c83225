/* SPDX-License-Identifier: MIT */
/* Which pages of a process are in memory or swapped out, from
 * /proc/PID/pagemap: a scan of target memory skips what was never
 * touched, instead of reading it as pages of zeros (a process can reserve
 * terabytes of address space for a few kilobytes of its RSS). */
#ifndef LBP_PAGEMAP_H
#define LBP_PAGEMAP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct pagemap;

/* NULL when it cannot be read (then every page counts as touched). */
struct pagemap *pagemap_open(pid_t pid);
void pagemap_close(struct pagemap *pm);

/* Whether the mapping start..end holds no page at all, in memory or in
 * swap (from /proc/PID/smaps, read at open). */
bool pagemap_untouched_map(const struct pagemap *pm, uint64_t start, uint64_t end);

/* The page size the entries are of. */
uint64_t pagemap_page_size(const struct pagemap *pm);

/* present[i] = 1 when page i of the npages from addr (page-aligned) is
 * present or swapped, else 0.  0, or -1 when unknown (treat all as
 * touched).  A reader that reads only present pages never maps the zero
 * page into the target itself, so present stays the target's doing. */
int pagemap_present(struct pagemap *pm, uint64_t addr, size_t npages, uint8_t *present);

#endif
