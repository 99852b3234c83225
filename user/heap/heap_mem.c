// SPDX-License-Identifier: MIT
/* Direct-mapped page cache over mem_read (see heap_mem.h). */
#include "heap/heap_mem.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "proc/memory.h"

#define PAGE		4096u
#define NSLOTS		2048u		/* 8 MiB of cached pages */
#define NO_PAGE		UINT64_MAX

struct page_slot {
	uint64_t page;			/* page address, NO_PAGE if empty */
	int bad;			/* the page could not be read */
	uint8_t *bytes;			/* PAGE bytes, allocated on first use */
};

struct heap_mem {
	struct mem_reader *m;
	struct page_slot *slots;
	uint64_t pages_read, faults;
	uint64_t bytes_read;		/* pages and direct reads */
	struct heap_budget budget;
	enum heap_mem_end end;
};

void heap_mem_set_budget(struct heap_mem *h, const struct heap_budget *b)
{
	h->budget = *b;
	h->end = HEAP_MEM_OK;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Checked before every read from the target, never after: a page in the
 * cache stays free. */
enum heap_mem_end heap_mem_spent(struct heap_mem *h)
{
	const struct heap_budget *b = &h->budget;

	if (h->end != HEAP_MEM_OK)
		return h->end;
	if (b->stop && *b->stop)
		h->end = HEAP_MEM_STOPPED;
	else if (b->max_bytes && h->bytes_read >= b->max_bytes)
		h->end = HEAP_MEM_BYTES;
	else if (b->deadline_ns && now_ns() >= b->deadline_ns)
		h->end = HEAP_MEM_TIME;
	return h->end;
}

enum heap_mem_end heap_mem_ended(const struct heap_mem *h)
{
	return h->end;
}

uint64_t heap_mem_bytes_read(const struct heap_mem *h)
{
	return h->bytes_read;
}

uint64_t heap_mem_bytes_left(const struct heap_mem *h)
{
	if (!h->budget.max_bytes)
		return UINT64_MAX;
	return h->bytes_read < h->budget.max_bytes ? h->budget.max_bytes - h->bytes_read : 0;
}

/* A read from the target itself, counted against the budget. */
static int budget_read(struct heap_mem *h, uint64_t addr, void *buf, size_t len)
{
	if (heap_mem_spent(h))
		return -1;
	h->bytes_read += len;
	return mem_read(h->m, addr, buf, len);
}

struct heap_mem *heap_mem_open(struct mem_reader *m)
{
	struct heap_mem *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->m = m;
	h->slots = calloc(NSLOTS, sizeof(*h->slots));
	if (!h->slots) {
		free(h);
		return NULL;
	}
	for (unsigned i = 0; i < NSLOTS; i++)
		h->slots[i].page = NO_PAGE;
	return h;
}

void heap_mem_close(struct heap_mem *h)
{
	if (!h)
		return;
	for (unsigned i = 0; i < NSLOTS; i++)
		free(h->slots[i].bytes);
	free(h->slots);
	free(h);
}

/* A page that cannot be read whole (a mapping ending mid-page never
 * happens on Linux, but an image may) is read byte range by range. */
static const struct page_slot *page_get(struct heap_mem *h, uint64_t page)
{
	struct page_slot *s = &h->slots[(page / PAGE) % NSLOTS];

	if (s->page == page)
		return s;
	if (!s->bytes && !(s->bytes = malloc(PAGE))) {
		s->page = NO_PAGE;
		s->bad = 1;
		return s;
	}
	if (heap_mem_spent(h)) {
		s->page = NO_PAGE;	/* not cached: unread, not unreadable */
		s->bad = 1;
		return s;
	}
	s->page = page;
	s->bad = budget_read(h, page, s->bytes, PAGE) != 0;
	h->pages_read++;
	return s;
}

int heap_mem_read(struct heap_mem *h, uint64_t addr, void *buf, size_t len)
{
	uint8_t *out = buf;

	if (addr + len < addr) {
		h->faults++;
		return -1;
	}
	while (len) {
		uint64_t page = addr & ~(uint64_t)(PAGE - 1);
		size_t off = (size_t)(addr - page), n = PAGE - off;
		const struct page_slot *s;

		if (n > len)
			n = len;
		s = page_get(h, page);
		if (s->bad) {
			/* An image may hold part of a page: ask the reader. */
			if (budget_read(h, addr, out, n)) {
				h->faults++;
				return -1;
			}
		} else {
			memcpy(out, s->bytes + off, n);
		}
		out += n;
		addr += n;
		len -= n;
	}
	return 0;
}

uint64_t heap_mem_uint(struct heap_mem *h, uint64_t addr, int width)
{
	uint8_t b[8];
	uint64_t v = 0;

	if (width < 1 || width > 8 || heap_mem_read(h, addr, b, (size_t)width))
		return 0;
	for (int i = width - 1; i >= 0; i--)
		v = (v << 8) | b[i];
	return v;
}

uint64_t heap_mem_pages_read(const struct heap_mem *h)
{
	return h->pages_read;
}

uint64_t heap_mem_faults(const struct heap_mem *h)
{
	return h->faults;
}
