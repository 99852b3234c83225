// SPDX-License-Identifier: MIT
/* memory.h for the snapshot tool: live reads that can be recorded.  It
 * replaces user/memory.c in that one program. */
#define _GNU_SOURCE
#include "recmem.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

struct mem_reader {
	pid_t pid;
	const struct mem_region *regions;
	size_t nregions;
	uint64_t faults;
	bool recording;
	struct mem_record *recs;
	size_t nrecs, cap;
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

static void drop_records(struct mem_reader *m)
{
	for (size_t i = 0; i < m->nrecs; i++)
		free(m->recs[i].data);
	free(m->recs);
	m->recs = NULL;
	m->nrecs = m->cap = 0;
}

void mem_close(struct mem_reader *m)
{
	if (!m)
		return;
	drop_records(m);
	free(m);
}

void recmem_start(struct mem_reader *m)
{
	drop_records(m);
	m->recording = true;
}

void recmem_stop(struct mem_reader *m, struct mem_record **recs, size_t *n)
{
	m->recording = false;
	*recs = m->recs;
	*n = m->nrecs;
}

static void record(struct mem_reader *m, uint64_t addr, const void *buf, size_t len)
{
	struct mem_record *r;

	if (m->nrecs == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		struct mem_record *p = realloc(m->recs, cap * sizeof(*p));

		if (!p)
			return;
		m->recs = p;
		m->cap = cap;
	}
	r = &m->recs[m->nrecs];
	r->data = malloc(len);
	if (!r->data)
		return;
	memcpy(r->data, buf, len);
	r->addr = addr;
	r->len = len;
	m->nrecs++;
}

int mem_read(struct mem_reader *m, uint64_t addr, void *buf, size_t len)
{
	int err = -1;

	if (!len)
		return 0;
	if (addr + len < addr) {
		err = -1;
	} else if (m->pid) {
		struct iovec local = { buf, len };
		struct iovec remote = { (void *)(uintptr_t)addr, len };

		err = process_vm_readv(m->pid, &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -1;
	} else {
		for (size_t i = 0; i < m->nregions && err; i++) {
			const struct mem_region *r = &m->regions[i];

			if (addr >= r->addr && len <= r->len && addr - r->addr <= r->len - len) {
				memcpy(buf, (const char *)r->data + (addr - r->addr), len);
				err = 0;
			}
		}
	}
	if (err)
		m->faults++;
	else if (m->recording)
		record(m, addr, buf, len);
	return err;
}

int mem_read_cstr(struct mem_reader *m, uint64_t addr, char *buf, size_t max)
{
	size_t n = 0;

	if (!max)
		return -1;
	while (n + 1 < max) {
		size_t chunk = 4096 - ((addr + n) & 4095);

		if (chunk > max - 1 - n)
			chunk = max - 1 - n;
		if (chunk > 256)
			chunk = 256;
		if (mem_read(m, addr + n, buf + n, chunk))
			return -1;
		for (size_t i = 0; i < chunk; i++)
			if (!buf[n + i])
				return 0;
		n += chunk;
	}
	buf[n] = '\0';
	return 0;
}

uint64_t mem_faults(const struct mem_reader *m)
{
	return m->faults;
}
