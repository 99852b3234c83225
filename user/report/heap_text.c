// SPDX-License-Identifier: MIT
/* Heap census text (see heap_text.h). */
#include "report/heap_text.h"

#include <inttypes.h>

#include "base/textsafe.h"
#include "model/heap_census.h"
#include "model/heap_growth.h"
#include "heap/heap_walk.h"

/* src/lj_gc.h GCSpause ... GCSfinalize */
static const char *gc_state_name(unsigned s)
{
	static const char *const names[] = {
		"pause", "propagate", "atomic", "sweepstring", "sweep", "finalize",
	};

	return s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

static void kind_line(FILE *f, enum heap_kind k, const struct heap_kind_row *r)
{
	fprintf(f, "%-14s %10" PRIu64 " %14" PRIu64, heap_kind_name(k), r->count, r->bytes);
	if (k == HK_TABLE)
		fprintf(f, "  header %" PRIu64 ", array %" PRIu64 ", hash %" PRIu64,
			r->bytes - r->bytes_a - r->bytes_h, r->bytes_a, r->bytes_h);
	else if (k == HK_THREAD)
		fprintf(f, "  states %" PRIu64 ", stacks %" PRIu64, r->bytes - r->bytes_a,
			r->bytes_a);
	fputc('\n', f);
}

void heap_text_census(FILE *f, pid_t pid, const char *runtime, const struct heap_census *c,
		      const struct heap_walk_stats *st)
{
	uint64_t bad = st->bad_links + st->repeats + st->truncated + st->inconsistent;

	fprintf(f, "# Lua heap census of PID %d (%s), GC state %s\n", (int)pid, runtime,
		gc_state_name(st->gc_state));
	fprintf(f, "%-14s %10s %14s\n", "kind", "count", "bytes");
	for (int k = 0; k < HK_NKINDS; k++)
		kind_line(f, (enum heap_kind)k, &c->kind[k]);
	fprintf(f, "%-14s %10" PRIu64 " %14" PRIu64 "\n", "objects", c->objects, c->bytes);
	fprintf(f, "%-14s %10s %14" PRIu64 "  string table %" PRIu64 ", string buffer %" PRIu64 "\n",
		"VM buffers", "", c->strtab_bytes + c->tmpbuf_bytes, c->strtab_bytes,
		c->tmpbuf_bytes);
	fprintf(f, "%-14s %10s %14" PRIu64 "\n", "accounted", "", c->accounted);
	fprintf(f, "%-14s %10s %14" PRIu64 "  accounted %.1f%% (the rest: VM state, JIT and FFI tables)\n",
		"gc.total", "", c->gc_total,
		c->gc_total ? 100.0 * (double)c->accounted / (double)c->gc_total : 0.0);
	fprintf(f, "%-14s %10" PRIu64 "  (bad links %" PRIu64 ", repeated objects %" PRIu64
		", lists cut %" PRIu64 ", sizes not believed %" PRIu64
		"; gc.total moved by %" PRId64 " during the walk)\n",
		"inconsistent", bad, st->bad_links, st->repeats, st->truncated, st->inconsistent,
		(int64_t)(st->gc_total_end - st->gc_total));
	/* What the target can hold bounds what its headers may claim. */
	fprintf(f, "%-14s %10s %14" PRIu64 "  read %" PRIu64 " B from the target\n",
		"believable", "", st->plausible, st->bytes_read);
}

void heap_text_growth(FILE *f, const struct heap_growth *g, int n)
{
	double secs = g->secs > 0 ? g->secs : 1;

	fprintf(f, "# Growth over %.1f s: gc.total %+" PRId64 " B (%+.0f B/s)\n", g->secs,
		g->dtotal, (double)g->dtotal / secs);
	fprintf(f, "%-14s %10s %14s %12s\n", "kind", "objects", "bytes", "B/s");
	for (int k = 0; k < HK_NKINDS; k++)
		fprintf(f, "%-14s %+10" PRId64 " %+14" PRId64 " %+12.0f\n",
			heap_kind_name((enum heap_kind)k), g->kind_dcount[k], g->kind_dbytes[k],
			(double)g->kind_dbytes[k] / secs);
	fprintf(f, "\n# Paths that grew most\n%14s %12s %10s  %s\n", "bytes", "B/s", "objects",
		"path");
	for (int i = 0; i < n && (size_t)i < g->n && g->rows[i].dbytes > 0; i++)
		text_fprintf_line(f, "%+14" PRId64 " %+12.0f %+10" PRId64 "  %s", g->rows[i].dbytes,
			(double)g->rows[i].dbytes / secs, g->rows[i].dcount, g->rows[i].name);
}
