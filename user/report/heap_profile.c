// SPDX-License-Identifier: MIT
/* One VM's heap as pprof (see heap_profile.h). */
#define _GNU_SOURCE
#include "report/heap_profile.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "model/heap_census.h"
#include "model/heap_paths.h"
#include "report/heap_pprof.h"
#include "report/otlp.h"
#include "luajit/discover.h"
#include "heap/heap_walk.h"

static uint64_t now_ns(void)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	return (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
}

/* Renders the paths through a memory stream into gz. */
static int encode(const struct heap_paths *hp, const struct heap_census *c, struct strbuf *gz,
		  uint64_t at)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc;

	if (!f)
		return -1;
	rc = heap_pprof_write(f, hp, c, at);
	if (fclose(f))
		rc = -1;
	if (!rc) {
		sb_reset(gz);
		sb_putn(gz, buf, len);
	}
	free(buf);
	return rc;
}

int heap_profile(struct mem_reader *mem, const struct lj_vm *vm, const struct heap_limits *lim,
		 struct strbuf *gz, struct otlp_request *r, const struct otlp_resource *res,
		 char *why, size_t whylen)
{
	struct heap_snapshot snap;
	struct heap_paths hp;
	uint64_t at = now_ns();
	int rc = -1;

	if (heap_walk_limited(mem, vm->layout, vm->g, lim, &snap, why, whylen))
		return -1;
	if (heap_paths_build(&snap, &hp)) {
		snprintf(why, whylen, "out of memory");
	} else {
		struct heap_census c;

		heap_census_count(&snap, &c);
		rc = gz ? encode(&hp, &c, gz, at) : 0;
		if (rc)
			snprintf(why, whylen, "cannot encode the profile");
		else if (heap_walk_ended(&snap, why, whylen))
			rc = 1;
		if (rc >= 0 && r)
			otlp_add_heap(r, res, &hp, &c, at);
		heap_paths_free(&hp);
	}
	heap_snapshot_free(&snap);
	return rc;
}
