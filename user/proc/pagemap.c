// SPDX-License-Identifier: MIT
/* Touched pages from /proc/PID/pagemap (pagemap.h).  Each page has a
 * 64-bit entry: bit 63 present, bit 62 swapped.  The page frame numbers
 * are hidden without CAP_SYS_ADMIN; these two bits are not. */
#define _GNU_SOURCE
#include "proc/pagemap.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PM_PRESENT	(1ull << 63)
#define PM_SWAPPED	(1ull << 62)
#define ENTRIES		16384	/* read at a time: 64 MiB of address space */

#define SMAPS_MAX	(16u << 20)	/* text of /proc/PID/smaps read at most */

/* A mapping smaps says holds no page at all (Rss and Swap 0 kB). */
struct empty_map {
	uint64_t start, end;
};

struct pagemap {
	int fd;
	uint64_t page;
	struct empty_map *empty;	/* ascending */
	size_t nempty, cap;
	uint64_t e[ENTRIES];
};

static void add_empty(struct pagemap *pm, uint64_t start, uint64_t end)
{
	if (pm->nempty == pm->cap) {
		size_t cap = pm->cap ? pm->cap * 2 : 64;
		struct empty_map *m = realloc(pm->empty, cap * sizeof(*m));

		if (!m)
			return;
		pm->empty = m;
		pm->cap = cap;
	}
	pm->empty[pm->nempty++] = (struct empty_map){ start, end };
}

/* smaps walks the page tables in the kernel: for a mapping never touched
 * it costs next to nothing, where pagemap returns 8 bytes per page (a
 * second per 10 GiB of reserved address space). */
static void read_smaps(struct pagemap *pm, pid_t pid)
{
	unsigned long long start = 0, end = 0, a, b, kb, held = 0;
	char path[64], *line = NULL, key[32];
	size_t cap = 0, total = 0;
	int fields = 0;
	ssize_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/smaps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (total < SMAPS_MAX && (n = getline(&line, &cap, f)) > 0) {
		total += (size_t)n;
		/* a header: "start-end perms ..." ("FilePmdMapped:" starts with hex) */
		if (sscanf(line, "%llx-%llx ", &a, &b) == 2 && strchr(line, '-') < strchr(line, ' ')) {
			start = a;
			end = b;
			held = 0;
			fields = 0;
		} else if (sscanf(line, "%31s %llu kB", key, &kb) == 2 &&
			   (!strcmp(key, "Rss:") || !strcmp(key, "Swap:"))) {
			held += kb;
			if (++fields == 2 && !held)
				add_empty(pm, start, end);
		}
	}
	free(line);
	fclose(f);
}

struct pagemap *pagemap_open(pid_t pid)
{
	struct pagemap *pm;
	char path[64];
	int fd;

	if (pid <= 0)
		return NULL;
	snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	pm = calloc(1, sizeof(*pm));
	if (!pm) {
		close(fd);
		return NULL;
	}
	pm->fd = fd;
	pm->page = (uint64_t)sysconf(_SC_PAGESIZE);
	read_smaps(pm, pid);
	return pm;
}

void pagemap_close(struct pagemap *pm)
{
	if (!pm)
		return;
	close(pm->fd);
	free(pm->empty);
	free(pm);
}

uint64_t pagemap_page_size(const struct pagemap *pm)
{
	return pm->page;
}

bool pagemap_untouched_map(const struct pagemap *pm, uint64_t start, uint64_t end)
{
	size_t lo = 0, hi = pm ? pm->nempty : 0;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (pm->empty[mid].start < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return pm && lo < pm->nempty && pm->empty[lo].start == start && pm->empty[lo].end == end;
}

int pagemap_present(struct pagemap *pm, uint64_t addr, size_t npages, uint8_t *present)
{
	uint64_t *e, first;

	if (!pm)
		return -1;
	e = pm->e;
	first = addr / pm->page;
	for (size_t done = 0; done < npages; ) {
		size_t n = npages - done < ENTRIES ? npages - done : ENTRIES;
		ssize_t got = pread(pm->fd, e, n * sizeof(e[0]),
				    (off_t)((first + done) * sizeof(e[0])));

		if (got != (ssize_t)(n * sizeof(e[0])))
			return -1;
		for (size_t i = 0; i < n; i++)
			present[done + i] = !!(e[i] & (PM_PRESENT | PM_SWAPPED));
		done += n;
	}
	return 0;
}
