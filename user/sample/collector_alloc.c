// SPDX-License-Identifier: MIT
/* -e alloc: the allocator uprobes, one per target process and allocator
 * file offset (bpf/alloc.bpf.h), attached and detached with the targets. */
#include "sample/collector.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "sample/collector_int.h"
#include "sampler.skel.h"

bool collector_samples_alloc(const struct collector *c)
{
	return c->alloc_every != 0;
}

/* A pid filter: the breakpoint is installed in this process only. */
static struct bpf_link *attach_one(struct collector *c, pid_t pid, const char *path, uint64_t off)
{
	return bpf_program__attach_uprobe(c->skel->progs.on_alloc, false, pid, path, (size_t)off);
}

int collector_alloc_sites(const struct collector *c)
{
	return c->nalinks;
}

uint64_t collector_alloc_gate(struct collector *c, bool on)
{
	uint64_t before = clock_ns(CLOCK_MONOTONIC);

	c->alloc_on = on;
	for (int i = 0; i < c->nalinks; i++) {
		struct alloc_link *al = &c->alinks[i];

		if (on && !al->link) {
			al->link = attach_one(c, al->pid, al->path, al->off);
			if (!al->link)
				log_verbose("PID %d: reattaching the allocator probe: %s",
					    (int)al->pid, strerror(errno));
		} else if (!on && al->link) {
			bpf_link__destroy(al->link);
			al->link = NULL;
		}
	}
	/* Attached once the attach returns; a detach takes 100 ms and more
	 * (the kernel waits for readers to finish), but the breakpoints
	 * go first: a window counts from the end of one to the start of the
	 * other (bench/RESULTS.md, figure 10). */
	return on ? clock_ns(CLOCK_MONOTONIC) : before;
}

int collector_attach_alloc(struct collector *c, pid_t pid, const char *path, uint64_t off)
{
	struct alloc_link *al;
	struct bpf_link *link;

	for (int i = 0; i < c->nalinks; i++)
		if (c->alinks[i].pid == pid && c->alinks[i].off == off &&
		    !strcmp(c->alinks[i].path, path))
			return 0;
	if (c->nalinks == c->calinks) {
		int cap = c->calinks ? 2 * c->calinks : 8;
		struct alloc_link *n = realloc(c->alinks, (size_t)cap * sizeof(*n));

		if (!n)
			return -1;
		c->alinks = n;
		c->calinks = cap;
	}
	link = c->alloc_gated && !c->alloc_on ? NULL : attach_one(c, pid, path, off);
	if (!link && (!c->alloc_gated || c->alloc_on))
		return -1;
	al = &c->alinks[c->nalinks++];
	al->pid = pid;
	al->off = off;
	snprintf(al->path, sizeof(al->path), "%s", path);
	al->link = link;
	log_verbose("PID %d: sampling allocations at %s+0x%llx", (int)pid, path,
		    (unsigned long long)off);
	return 0;
}

void collector_detach_alloc(struct collector *c, pid_t pid)
{
	for (int i = 0; i < c->nalinks;) {
		if (c->alinks[i].pid != pid) {
			i++;
			continue;
		}
		if (c->alinks[i].link)
			bpf_link__destroy(c->alinks[i].link);
		c->alinks[i] = c->alinks[--c->nalinks];
	}
}
