// SPDX-License-Identifier: MIT
/* Target memory readers: a live process (process_vm_readv) or an image. */
#define _GNU_SOURCE
#include "proc/memory.h"

#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

struct mem_reader {
	pid_t pid;			/* 0 for an image */
	const struct mem_region *regions;
	size_t nregions;
	const struct mem_region *overlay;	/* mem_set_overlay */
	size_t noverlay;
	uint64_t faults;
	uint64_t bytes;		/* read from the process (not the overlay, not images) */
};

struct mem_reader *mem_open_pid(pid_t pid)
{
	struct mem_reader *m = calloc(1, sizeof(*m));

	if (m)
		m->pid = pid;
	return m;
}

struct mem_reader *mem_open_image(const struct mem_region *regions, size_t n)
{
	struct mem_reader *m = calloc(1, sizeof(*m));

	if (m) {
		m->regions = regions;
		m->nregions = n;
	}
	return m;
}

void mem_close(struct mem_reader *m)
{
	free(m);
}

static int read_image(struct mem_reader *m, uint64_t addr, void *buf, size_t len)
{
	for (size_t i = 0; i < m->nregions; i++) {
		const struct mem_region *r = &m->regions[i];

		if (addr >= r->addr && len <= r->len && addr - r->addr <= r->len - len) {
			memcpy(buf, (const char *)r->data + (addr - r->addr), len);
			return 0;
		}
	}
	return -1;
}

void mem_set_overlay(struct mem_reader *m, const struct mem_region *spans, size_t n)
{
	m->overlay = spans;
	m->noverlay = n;
}

/* 0: served from the overlay, -1: it straddles an overlay span's edge, 1:
 * outside every span. */
static int read_overlay(struct mem_reader *m, uint64_t addr, void *buf, size_t len)
{
	for (size_t i = 0; i < m->noverlay; i++) {
		const struct mem_region *r = &m->overlay[i];

		if (addr >= r->addr && len <= r->len && addr - r->addr <= r->len - len) {
			memcpy(buf, (const char *)r->data + (addr - r->addr), len);
			return 0;
		}
		if (addr < r->addr + r->len && addr + len > r->addr)
			return -1;
	}
	return 1;
}

int mem_read(struct mem_reader *m, uint64_t addr, void *buf, size_t len)
{
	int err = 1;

	if (!len)
		return 0;
	if (m->noverlay && addr + len >= addr)
		err = read_overlay(m, addr, buf, len);
	if (err <= 0) {
		/* served by the overlay, or mixing it with memory read now */
	} else if (addr + len < addr) {
		err = -1;
	} else if (m->pid) {
		struct iovec local = { buf, len };
		struct iovec remote = { (void *)(uintptr_t)addr, len };

		err = process_vm_readv(m->pid, &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -1;
		if (!err)
			m->bytes += len;
	} else {
		err = read_image(m, addr, buf, len);
	}
	if (err)
		m->faults++;
	return err;
}

int mem_read_cstr(struct mem_reader *m, uint64_t addr, char *buf, size_t max)
{
	size_t n = 0;

	if (!max)
		return -1;
	/* Byte-wise reads would cost a syscall each: read small chunks that
	 * do not cross a page, so an unmapped next page is never touched. */
	while (n + 1 < max) {
		uint64_t a = addr + n;
		size_t chunk = 4096 - (a & 4095);

		if (chunk > max - 1 - n)
			chunk = max - 1 - n;
		if (chunk > 256)
			chunk = 256;
		if (mem_read(m, a, buf + n, chunk))
			return -1;
		for (size_t i = 0; i < chunk; i++)
			if (!buf[n + i])
				return 0;
		n += chunk;
	}
	buf[n] = '\0';
	return 0;
}

uint64_t mem_bytes(const struct mem_reader *m)
{
	return m->bytes;
}

uint64_t mem_faults(const struct mem_reader *m)
{
	return m->faults;
}
