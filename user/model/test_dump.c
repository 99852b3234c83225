// SPDX-License-Identifier: MIT
/* dump's pure parts: short values of TValues read from a synthetic heap
 * (heap/test_heap_image.h), GC64 and non-GC64; the status of a main
 * thread with no Lua running; and the model's order of threads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/unit.h"
#include "model/dump.h"
#include "heap/dump_thread.h"
#include "heap/heap_walk.h"
#include "proc/memory.h"
#include "heap/test_heap_image.h"

static struct heap_image im;

static const char *value(struct heap_snapshot *s, uint64_t tv, size_t width)
{
	static char buf[DUMP_VALUE];

	dump_value_short(&s->ctx, tv, width, buf, sizeof(buf));
	return buf;
}

static void values(const struct lj_layout *lay, const char *w)
{
	struct mem_region r;
	struct mem_reader *mem;
	struct heap_snapshot s;
	struct dump_thread_raw *t = malloc(sizeof(*t));
	char name[96], want[96];

	heap_image_build(&im, lay);
	r = (struct mem_region){ im.base, im.b, HI_SIZE };
	mem = mem_open_image(&r, 1);
	if (heap_walk(mem, lay, im.base + HI_GG + lay->sizeof_L, &s, want, sizeof(want))) {
		snprintf(name, sizeof(name), "%s: walk", w);
		CHECK(name, 0);
		return;
	}
	snprintf(name, sizeof(name), "%s: string", w);
	CHECK_STR(name, value(&s, hi_tv(&im, HI_HELLO, 4), 40), "\"hello\"");
	snprintf(name, sizeof(name), "%s: string cut to its width", w);
	CHECK_STR(name, value(&s, hi_tv(&im, HI_HELLO, 4), 3), "\"hel\"...");
	snprintf(name, sizeof(name), "%s: table with 3 array entries", w);
	snprintf(want, sizeof(want), "table: %#llx (3 entries)", (unsigned long long)im.base + HI_T1);
	CHECK_STR(name, value(&s, hi_tv(&im, HI_T1, 11), 40), want);
	snprintf(name, sizeof(name), "%s: table of nils and a colocated array", w);
	snprintf(want, sizeof(want), "table: %#llx (0 entries)", (unsigned long long)im.base + HI_T2);
	CHECK_STR(name, value(&s, hi_tv(&im, HI_T2, 11), 40), want);
	snprintf(name, sizeof(name), "%s: table with 2 hash entries", w);
	snprintf(want, sizeof(want), "table: %#llx (2 entries)", (unsigned long long)im.base + HI_G);
	CHECK_STR(name, value(&s, hi_tv(&im, HI_G, 11), 40), want);
	snprintf(name, sizeof(name), "%s: number, nil, booleans", w);
	CHECK(name, !strcmp(value(&s, 0x4045000000000000ull, 40), "42") &&
		    !strcmp(value(&s, ~0ull, 40), "nil") &&
		    !strcmp(value(&s, lay->gc64 ? ~1ull << 47 | 0x7fffffffffffull :
					     (uint64_t)0xfffffffeu << 32, 40), "false") &&
		    !strcmp(value(&s, lay->gc64 ? ~2ull << 47 | 0x7fffffffffffull :
					     (uint64_t)0xfffffffdu << 32, 40), "true"));
	/* arm64's builds are dual-number: setintV tags a 32-bit integer
	 * LJ_TISNUM (~13) in GC64's top 17 bits (src/lj_obj.h). */
	snprintf(name, sizeof(name), "%s: a dual-number integer, 3 and -7", w);
	CHECK(name, !strcmp(value(&s, lay->gc64 ? ~13ull << 47 | 3 : (uint64_t)0xfffffff2u << 32 | 3,
				40), "3") &&
		    !strcmp(value(&s, lay->gc64 ? ~13ull << 47 | 0xfffffff9u :
					     (uint64_t)0xfffffff2u << 32 | 0xfffffff9u, 40), "-7"));
	snprintf(name, sizeof(name), "%s: C function", w);
	CHECK_STR(name, value(&s, hi_tv(&im, HI_CFUNC, 8), 40), "function: C 0");
	snprintf(name, sizeof(name), "%s: a pointer to no object", w);
	CHECK(name, !strncmp(value(&s, hi_tv(&im, 0x5ff0, 11), 40), "table: ", 7));
	snprintf(name, sizeof(name), "%s: the main thread, no Lua running: idle, no frames", w);
	CHECK(name, t && !dump_thread_read(&s.ctx, im.base + HI_GG, t) && t->main &&
		    t->status == DUMP_IDLE && t->n == 0);
	snprintf(name, sizeof(name), "%s: a table is no thread", w);
	CHECK(name, t && dump_thread_read(&s.ctx, im.base + HI_T1, t) == -1);
	free(t);
	heap_snapshot_free(&s);
	mem_close(mem);
}

static void order(void)
{
	struct dump d;
	const char *want[] = { "running", "idle", "normal", "suspended", "suspended", "dead" };
	bool ok = true;

	dump_init(&d, 1, "test", 0);
	dump_add_thread(&d, 0x50, "dead");
	dump_add_thread(&d, 0x40, "suspended");
	dump_add_thread(&d, 0x30, "suspended");
	dump_add_thread(&d, 0x20, "normal");
	dump_add_thread(&d, 0x10, "idle")->main = true;
	dump_add_thread(&d, 0x60, "running")->current = true;
	dump_add_local(&d, dump_add_frame(&d, &d.threads[0], "f", "/t.lua", 3, 1), "x", "1");
	dump_sort(&d);
	for (size_t i = 0; i < d.n; i++)
		ok = ok && !strcmp(d.threads[i].status, want[i]);
	CHECK("threads ordered: running, main, normal, suspended, dead", ok && d.n == 6);
	CHECK("suspended ones by address", d.threads[3].addr == 0x30 && d.threads[4].addr == 0x40);
	CHECK("frames and locals stay with their thread",
	      d.threads[5].nframes == 1 && !strcmp(d.threads[5].frames[0].locals[0].value, "1"));
	dump_free(&d);
	CHECK("freed", d.n == 0 && d.threads == NULL);
}

/* The caps: names cut whole code points with "...", shared strings held
 * once, coroutines and frames beyond the caps counted, not kept. */
static void caps(void)
{
	struct dump d;
	struct dump_thread *t;
	struct dump_frame *a, *b;
	char *big = malloc(70000);
	size_t n = 0;

	dump_init(&d, 1, "test", 0);
	t = dump_add_thread(&d, 0x10, "suspended");
	memset(big, 'x', 69999);
	big[69999] = '\0';
	memcpy(big + DUMP_NAME_MAX - 4, "\xe4\xb8\xad", 3);	/* a CJK character across the cut */
	a = dump_add_frame(&d, t, "f", big, 1, 1);
	b = dump_add_frame(&d, t, "g", big, 2, 1);	/* a moved: frames grew */
	a = &t->frames[0];
	CHECK("a 70 KB chunk name: cut before the character that crosses the cut, '...' added",
	      b && strlen(a->chunk) == DUMP_NAME_MAX - 4 + 3 &&
	      !strcmp(a->chunk + DUMP_NAME_MAX - 4, "..."));
	CHECK("the same name twice: held once", b && t->frames[0].chunk == t->frames[1].chunk);
	CHECK("names cut: counted", d.loss.names_cut == 2);
	while (dump_add_thread(&d, 0x20 + n, "dead"))
		n++;
	CHECK("coroutines beyond the cap: not kept, counted",
	      d.n == DUMP_THREADS_MAX && d.loss.threads_dropped == 1);
	t = &d.threads[1];
	for (n = 0; dump_add_frame(&d, t, "h", "/t.lua", 1, 1); n++)
		;
	CHECK("frames beyond the cap: not kept, counted, the stack marked cut",
	      d.items == DUMP_FRAMES_MAX && d.loss.frames_dropped == 1 && t->cut);
	dump_free(&d);
	free(big);
}

int main(void)
{
	values(layout_at(0), "gc64");
	values(layout_at(3), "non-gc64");
	order();
	caps();
	return unit_failed ? 1 : 0;
}
