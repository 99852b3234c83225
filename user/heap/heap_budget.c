// SPDX-License-Identifier: MIT
/* What a heap walk may believe and what it may cost.  A target can make
 * any header claim anything (FFI writes its own VM's objects): a table's
 * array part pointed at an untouched 256 MiB mapping would cost a read of
 * 256 MiB, fault the target's pages in, and do it again for every table
 * pointing there.  So sizes are held to what the VM can really hold (its
 * gc.total, no more than its resident and swapped memory), parts that
 * overlap another are read once, and every read counts against a budget
 * in bytes and time derived from the same figure (heap_mem.h). */
#include "heap/heap_budget.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "heap/heap_mem.h"

#define MIB			(1ull << 20)
#define RESIDENT_SLACK		(16 * MIB)	/* allocated since /proc was read */
#define CLAIM_SLACK_DIV		4		/* the heap grows while walked */
/* The page cache reads a page again after it was evicted: a quiescent
 * 37 MB heap of 200,000 objects costs 245 MB of page reads for the walk
 * alone, and the references as much again. */
#define READ_PER_BYTE		32
#define READ_BASE		(256 * MIB)	/* headers, string table, pages */
#define READ_CAP		(16384 * MIB)	/* whatever the target claims */
#define SECS_BASE		5.0
#define SECS_PER_GIB		4.0
#define SECS_CAP		60.0

static uint64_t status_kib(const char *text, const char *field)
{
	const char *at = strstr(text, field);

	return at ? strtoull(at + strlen(field), NULL, 10) : 0;
}

void heap_limits_for(pid_t pid, double max_secs, volatile sig_atomic_t *stop,
		     struct heap_limits *lim)
{
	char path[64], text[4096];
	FILE *f;
	size_t n;

	memset(lim, 0, sizeof(*lim));
	lim->max_secs = max_secs;
	lim->stop = stop;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return;
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	lim->resident = (status_kib(text, "\nVmRSS:") + status_kib(text, "\nVmSwap:")) * 1024;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void heap_budget_plan(struct heap_snapshot *s, const struct heap_limits *lim)
{
	uint64_t plausible = s->st.gc_total, read_max;
	double secs = lim && lim->max_secs > 0 ? lim->max_secs : 0;
	struct heap_budget b = { 0 };

	if (lim && lim->resident && lim->resident + RESIDENT_SLACK < plausible)
		plausible = lim->resident + RESIDENT_SLACK;
	s->st.plausible = s->ctx.plausible = plausible;
	read_max = plausible > (READ_CAP - READ_BASE) / READ_PER_BYTE ? READ_CAP :
		   READ_PER_BYTE * plausible + READ_BASE;
	if (!secs) {
		secs = SECS_BASE + SECS_PER_GIB * (double)plausible / (double)(1024 * MIB);
		if (secs > SECS_CAP)
			secs = SECS_CAP;
	}
	b.max_bytes = read_max;
	b.deadline_ns = now_ns() + (uint64_t)(secs * 1e9);
	b.stop = lim ? lim->stop : NULL;
	heap_mem_set_budget(s->ctx.mem, &b);
}

/* One object as decoded: a size or part above what the VM holds, or
 * parts beyond what all objects together can hold, is not believed. */
void heap_claim(struct heap_snapshot *s, struct heap_obj *o)
{
	uint64_t max = s->ctx.plausible, all = max + max / CLAIM_SLACK_DIV + MIB;
	bool bad = false;

	if (o->bytes > max) {
		o->bytes = 0;
		bad = true;
	}
	if (o->bytes_a > max || o->bytes_h > max ||
	    s->claimed + o->bytes + o->bytes_a + o->bytes_h > all) {
		bad = bad || o->bytes_a || o->bytes_h;
		o->bytes_a = o->bytes_h = o->at_a = o->at_h = 0;
	}
	s->claimed += o->bytes + o->bytes_a + o->bytes_h;
	s->st.inconsistent += bad;
}

struct part {
	uint64_t at, len;
	uint32_t obj;
	bool hash;
};

static int part_cmp(const void *a, const void *b)
{
	const struct part *x = a, *y = b;

	return (x->at > y->at) - (x->at < y->at);
}

/* Separate parts (arrays, hash parts, stacks) that overlap an earlier one
 * are memory claimed twice: the later claim is dropped, so that no part
 * is read twice and the census does not count it twice. */
void heap_claims_overlap(struct heap_snapshot *s)
{
	struct part *v = NULL;
	size_t n = 0;
	uint64_t end = 0;

	for (size_t i = 0; i < s->n; i++)
		n += (s->objs[i].at_a != 0) + (s->objs[i].at_h != 0);
	if (!n || !(v = malloc(n * sizeof(*v))))
		return;
	n = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct heap_obj *o = &s->objs[i];

		if (o->at_a)
			v[n++] = (struct part){ o->at_a, o->bytes_a, (uint32_t)i, false };
		if (o->at_h)
			v[n++] = (struct part){ o->at_h, o->bytes_h, (uint32_t)i, true };
	}
	qsort(v, n, sizeof(*v), part_cmp);
	for (size_t i = 0; i < n; i++) {
		struct heap_obj *o = &s->objs[v[i].obj];

		if (v[i].at < end) {
			if (v[i].hash)
				o->bytes_h = o->at_h = 0;
			else
				o->bytes_a = o->at_a = 0;
			s->st.inconsistent++;
			continue;
		}
		end = v[i].at + v[i].len;
	}
	free(v);
}

const char *heap_walk_ended(const struct heap_snapshot *snap, char *buf, size_t len)
{
	switch (heap_mem_ended(snap->ctx.mem)) {
	case HEAP_MEM_BYTES:
		snprintf(buf, len, "its budget of %llu MiB read from the target was spent",
			 (unsigned long long)(heap_mem_bytes_read(snap->ctx.mem) / MIB));
		return buf;
	case HEAP_MEM_TIME:
		snprintf(buf, len, "its time budget was spent");
		return buf;
	case HEAP_MEM_STOPPED:
		snprintf(buf, len, "it was asked to stop");
		return buf;
	default:
		return NULL;
	}
}
