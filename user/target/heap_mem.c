/* Direct-mapped page cache over mem_read (see heap_mem.h). */
#include "target/heap_mem.h"

#include <stdlib.h>
#include <string.h>

#include "target/memory.h"

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
};

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
	s->page = page;
	s->bad = mem_read(h->m, page, s->bytes, PAGE) != 0;
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
			if (mem_read(h->m, addr, out, n)) {
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
