/* One VM's heap as pprof (see heap_profile.h). */
#define _GNU_SOURCE
#include "report/heap_profile.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "model/heap_paths.h"
#include "report/heap_pprof.h"
#include "target/discover.h"
#include "target/heap_walk.h"

/* Renders the paths through a memory stream into gz. */
static int encode(const struct heap_paths *hp, struct strbuf *gz)
{
	struct timespec now;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc;

	if (!f)
		return -1;
	clock_gettime(CLOCK_REALTIME, &now);
	rc = heap_pprof_write(f, hp, (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec);
	if (fclose(f))
		rc = -1;
	if (!rc) {
		sb_reset(gz);
		sb_putn(gz, buf, len);
	}
	free(buf);
	return rc;
}

int heap_profile_pprof(struct mem_reader *mem, const struct lj_vm *vm,
		       const struct heap_limits *lim, struct strbuf *gz, char *why,
		       size_t whylen)
{
	struct heap_snapshot snap;
	struct heap_paths hp;
	int rc = -1;

	if (heap_walk_limited(mem, vm->layout, vm->g, lim, &snap, why, whylen))
		return -1;
	if (heap_paths_build(&snap, &hp)) {
		snprintf(why, whylen, "out of memory");
	} else {
		rc = encode(&hp, gz);
		if (rc)
			snprintf(why, whylen, "cannot encode the profile");
		else if (heap_walk_ended(&snap, why, whylen))
			rc = 1;
		heap_paths_free(&hp);
	}
	heap_snapshot_free(&snap);
	return rc;
}
