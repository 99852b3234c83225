/* SPDX-License-Identifier: MIT */
/* A page cache over a memory reader for the heap walker: a heap of a
 * million objects read one header at a time would cost a million system
 * calls; objects allocated together share pages, so whole pages are read
 * once and served from here.  The target keeps running: a page is a
 * snapshot of the moment it was read, and the walker validates what it
 * decodes instead of trusting it. */
#ifndef LBP_HEAP_MEM_H
#define LBP_HEAP_MEM_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

struct mem_reader;
struct heap_mem;

struct heap_mem *heap_mem_open(struct mem_reader *m);
void heap_mem_close(struct heap_mem *h);

/* What one walk may cost: the target decides what its structures claim,
 * so every read counts against bytes and time, and a stop request ends
 * the reading at the next page. */
struct heap_budget {
	uint64_t max_bytes;		/* read from the target at most; 0: no bound */
	uint64_t deadline_ns;		/* CLOCK_MONOTONIC; 0: none */
	volatile sig_atomic_t *stop;	/* non-zero: stop; NULL: none */
};

enum heap_mem_end {
	HEAP_MEM_OK,		/* within the budget */
	HEAP_MEM_BYTES,		/* the byte budget is spent */
	HEAP_MEM_TIME,		/* the deadline passed */
	HEAP_MEM_STOPPED,	/* asked to stop */
};

void heap_mem_set_budget(struct heap_mem *h, const struct heap_budget *b);
/* Why reads are refused from now on; HEAP_MEM_OK while they are not. */
enum heap_mem_end heap_mem_spent(struct heap_mem *h);
/* Why a read was refused, without checking again: HEAP_MEM_OK if none. */
enum heap_mem_end heap_mem_ended(const struct heap_mem *h);
uint64_t heap_mem_bytes_read(const struct heap_mem *h);
/* Bytes the budget still allows (UINT64_MAX without a byte bound). */
uint64_t heap_mem_bytes_left(const struct heap_mem *h);

/* Reads len bytes at addr; 0, or -1 when any byte is unreadable. */
int heap_mem_read(struct heap_mem *h, uint64_t addr, void *buf, size_t len);

/* Reads an unsigned little-endian value of 1, 2, 4 or 8 bytes; 0 when
 * unreadable (callers treat 0 as "no object" or "empty"). */
uint64_t heap_mem_uint(struct heap_mem *h, uint64_t addr, int width);

/* Pages read from the target, and reads refused (unmapped). */
uint64_t heap_mem_pages_read(const struct heap_mem *h);
uint64_t heap_mem_faults(const struct heap_mem *h);

#endif
