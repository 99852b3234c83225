// SPDX-License-Identifier: MIT
/* /proc/PID/maps parser. */
#include "proc/procmaps.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int procmaps_read(pid_t pid, struct proc_maps *maps)
{
	char path[64], line[512];
	int cap = 0, err = -1;
	FILE *f;

	maps->e = NULL;
	maps->n = 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		struct map_entry *e;
		char perms[8] = "", name[256] = "";
		unsigned long long start, end, offset, inode;
		int n;

		n = sscanf(line, "%llx-%llx %7s %llx %*s %llu %255[^\n]", &start, &end, perms,
			   &offset, &inode, name);
		if (n < 5)
			continue;
		if (maps->n == cap) {
			void *p;

			cap = cap ? cap * 2 : 64;
			p = realloc(maps->e, (size_t)cap * sizeof(*maps->e));
			if (!p) {
				errno = ENOMEM;
				goto cleanup;
			}
			maps->e = p;
		}
		e = &maps->e[maps->n++];
		memset(e, 0, sizeof(*e));
		e->start = start;
		e->end = end;
		e->offset = offset;
		e->inode = inode;
		e->r = perms[0] == 'r';
		e->w = perms[1] == 'w';
		e->x = perms[2] == 'x';
		/* The name column is padded with spaces. */
		{
			const char *s = name;

			while (*s == ' ')
				s++;
			snprintf(e->path, sizeof(e->path), "%s", s);
		}
	}
	err = 0;
cleanup:
	fclose(f);
	if (err)
		procmaps_free(maps);
	return err;
}

void procmaps_free(struct proc_maps *maps)
{
	free(maps->e);
	maps->e = NULL;
	maps->n = 0;
}

const struct map_entry *procmaps_find(const struct proc_maps *maps, uint64_t addr)
{
	for (int i = 0; i < maps->n; i++)
		if (addr >= maps->e[i].start && addr < maps->e[i].end)
			return &maps->e[i];
	return NULL;
}

bool map_is_file(const struct map_entry *e)
{
	return e->inode != 0 && e->path[0] == '/';
}
