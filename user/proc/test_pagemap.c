// SPDX-License-Identifier: MIT
/* Touched pages from smaps and pagemap, on a mapping of this process:
 * untouched, one page written, one page only read. */
#define _GNU_SOURCE
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/unit.h"
#include "proc/pagemap.h"

#define LEN	(64u << 20)

int main(void)
{
	uint8_t *p = mmap(NULL, LEN, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	uint64_t a = (uint64_t)(uintptr_t)p, page = (uint64_t)sysconf(_SC_PAGESIZE);
	static uint8_t present[LEN / 4096];
	struct pagemap *pm;
	size_t n = 0;

	if (p == MAP_FAILED)
		return 1;
	pm = pagemap_open(getpid());
	CHECK("an untouched mapping: smaps says it holds nothing", pagemap_untouched_map(pm, a, a + LEN));
	CHECK("... not a range that is not a mapping", !pagemap_untouched_map(pm, a, a + LEN / 2));
	CHECK("... and pagemap shows no page of it", !pagemap_present(pm, a, LEN / page, present) &&
	      !memchr(present, 1, LEN / page));
	pagemap_close(pm);
	p[5 * page + 1] = 7;
	pm = pagemap_open(getpid());
	CHECK("one page written: the mapping holds something", !pagemap_untouched_map(pm, a, a + LEN));
	if (!pagemap_present(pm, a, LEN / page, present))
		for (size_t i = 0; i < LEN / page; i++)
			n += present[i];
	CHECK("... exactly that page is present", n == 1 && present[5]);
	pagemap_close(pm);
	CHECK("no pagemap for pid 0 (an image): unknown", pagemap_present(NULL, a, 1, present) == -1 &&
	      !pagemap_untouched_map(NULL, a, a + LEN));
	munmap(p, LEN);
	UNIT_EXIT();
}
