// SPDX-License-Identifier: MIT
/* -e alloc: finds each VM's allocator (luajit/allocfn.c) and hands the
 * site to the collector, which attaches once per process and site (VMs of
 * one process usually share lj_alloc_f). */
#include "sample/alloc_sites.h"

#include <errno.h>
#include <string.h>

#include "base/log.h"
#include "sample/collector.h"
#include "luajit/allocfn.h"
#include "luajit/discover.h"

void alloc_sites_attach(struct collector *col, pid_t pid, struct mem_reader *mem,
			const struct lj_vm *vms, int n)
{
	if (!col || !collector_samples_alloc(col))
		return;
	for (int i = 0; i < n; i++) {
		struct allocfn_site site;
		char err[160];

		if (allocfn_locate(pid, mem, &vms[i], &site, err, sizeof(err))) {
			log_warn("PID %d: allocations not sampled: %s", (int)pid, err);
			continue;
		}
		log_verbose("PID %d: allocator 0x%llx probed %s", (int)pid,
			    (unsigned long long)site.addr, site.placement);
		if (collector_attach_alloc(col, pid, site.path, site.offset))
			log_warn("PID %d: cannot probe the allocator at %s+0x%llx: %s", (int)pid,
				 site.path, (unsigned long long)site.offset, strerror(errno));
	}
}
