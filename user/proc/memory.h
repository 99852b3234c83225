/* SPDX-License-Identifier: MIT */
/* Reading target memory behind a small interface, so that tests and the
 * fuzzer can back it with a synthetic image instead of a live process. */
#ifndef LBP_MEMORY_H
#define LBP_MEMORY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct mem_reader;

/* A region of a synthetic memory image. */
struct mem_region {
	uint64_t addr;
	const void *data;
	size_t len;
};

/* Reads the memory of a live process with process_vm_readv. */
struct mem_reader *mem_open_pid(pid_t pid);

/* Serves reads from the given regions (copied by reference: they must
 * outlive the reader).  A read must lie inside one region. */
struct mem_reader *mem_open_image(const struct mem_region *regions, size_t n);

void mem_close(struct mem_reader *m);

/* Serves reads that lie inside one of spans from it, instead of the
 * process or image: memory as a sampler copied it earlier.  A read that
 * straddles a span's edge fails: it would pair the copy with memory as it
 * is now.  The spans are used by reference until the next call; n = 0
 * turns the overlay off. */
void mem_set_overlay(struct mem_reader *m, const struct mem_region *spans, size_t n);

/* Reads len bytes at addr; 0 on success, -1 when any byte is unreadable. */
int mem_read(struct mem_reader *m, uint64_t addr, void *buf, size_t len);

/* Reads a NUL-terminated string of at most max-1 bytes into buf. */
int mem_read_cstr(struct mem_reader *m, uint64_t addr, char *buf, size_t max);

/* Bytes read from the live process since the reader was opened (what a
 * reader costs the target: process_vm_readv copies them). */
uint64_t mem_bytes(const struct mem_reader *m);

/* Reads that failed since the reader was opened. */
uint64_t mem_faults(const struct mem_reader *m);

#endif
