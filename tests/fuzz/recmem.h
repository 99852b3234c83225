/* SPDX-License-Identifier: MIT */
/* The snapshot tool's memory reader: memory.h over process_vm_readv, which
 * can also record every successful read (address, bytes) so that exactly
 * what a symbolization needed can be saved as an image. */
#ifndef LBP_RECMEM_H
#define LBP_RECMEM_H

#include <stddef.h>
#include <stdint.h>

#include "proc/memory.h"

struct mem_record {
	uint64_t addr;
	size_t len;
	uint8_t *data;
};

/* Starts recording the reads of m (dropping earlier records). */
void recmem_start(struct mem_reader *m);

/* Stops recording; the records stay owned by m until mem_close. */
void recmem_stop(struct mem_reader *m, struct mem_record **recs, size_t *n);

#endif
