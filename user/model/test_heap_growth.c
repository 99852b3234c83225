// SPDX-License-Identifier: MIT
/* Growth between two captures: paths matched by name, sorted by bytes
 * gained, vanished paths left out, twins (paths that print alike) merged,
 * kinds and gc.total subtracted. */
#include <stdlib.h>
#include <string.h>

#include "base/unit.h"
#include "model/heap_growth.h"
#include "model/heap_paths.h"

/* A path table by hand: labels[i] under parents[i], with own bytes. */
static void fake_paths(struct heap_paths *hp, int n, const char *const *labels,
		       const uint32_t *parents, const uint64_t *bytes)
{
	size_t len = 0;

	memset(hp, 0, sizeof(*hp));
	hp->p = calloc((size_t)n, sizeof(*hp->p));
	hp->pool = calloc(1, 1024);
	hp->n = (size_t)n;
	for (int i = 0; i < n; i++) {
		hp->p[i].parent = parents[i];
		hp->p[i].label = (uint32_t)len;
		hp->p[i].self_bytes = bytes[i];
		hp->p[i].self_count = bytes[i] ? 1 : 0;
		strcpy(hp->pool + len, labels[i]);
		len += strlen(labels[i]) + 1;
	}
}

int main(void)
{
	static const char *const la[] = { "_G", ".cache", "[*]", ".gone" };
	static const uint32_t pa[] = { HEAP_PATH_NONE, 0, 1, 0 };
	static const uint64_t ba[] = { 100, 50, 1000, 70 };
	/* b: the cache grew, "gone" vanished, a new path, and a twin of
	 * _G.cache[*] (a key that prints the same) */
	static const char *const lb[] = { "_G", ".cache", "[*]", ".new", ".cache[*]" };
	static const uint32_t pb[] = { HEAP_PATH_NONE, 0, 1, 0, 0 };
	static const uint64_t bb[] = { 100, 50, 5000, 300, 10 };
	struct heap_paths a, b;
	struct heap_census ca = { 0 }, cb = { 0 };
	struct heap_capture xa, xb;
	struct heap_growth g;

	fake_paths(&a, 4, la, pa, ba);
	fake_paths(&b, 5, lb, pb, bb);
	ca.gc_total = 10000;
	cb.gc_total = 14500;
	ca.kind[HK_TABLE].count = 3;
	cb.kind[HK_TABLE].count = 7;
	cb.kind[HK_TABLE].bytes = 400;
	heap_capture_take(&a, &ca, &xa);
	heap_capture_take(&b, &cb, &xb);
	CHECK("twins merged", xb.n == 4);
	heap_growth_diff(&xa, &xb, 2.0, &g);
	CHECK("rows: every path of the later census", g.n == 4);
	CHECK_STR("most grown first", g.rows[0].name, "_G.cache[*]");
	CHECK("its growth includes its twin", g.rows[0].dbytes == 4010 && g.rows[0].bytes == 5010);
	CHECK_STR("then the new path", g.rows[1].name, "_G.new");
	CHECK("a new path grew by all of it", g.rows[1].dbytes == 300 && g.rows[1].dcount == 1);
	CHECK("unchanged paths grew by 0", g.rows[2].dbytes == 0 && g.rows[3].dbytes == 0);
	for (size_t i = 0; i < g.n; i++)
		CHECK("a vanished path is not growth", strcmp(g.rows[i].name, "_G.gone"));
	CHECK("kinds", g.kind_dcount[HK_TABLE] == 4 && g.kind_dbytes[HK_TABLE] == 400);
	CHECK("gc.total and the interval", g.dtotal == 4500 && g.secs == 2.0);
	heap_growth_free(&g);
	heap_capture_free(&xa);
	heap_capture_free(&xb);
	free(a.p);
	free(a.pool);
	free(b.p);
	free(b.pool);
	UNIT_EXIT();
}
