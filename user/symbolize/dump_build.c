// SPDX-License-Identifier: MIT
/* Building a dump (see dump_build.h). */
#include "symbolize/dump_build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/strbuf.h"
#include "model/frame_fmt.h"
#include "symbolize/dump_request.h"
#include "symbolize/symbolize.h"
#include "heap/dump_thread.h"
#include "heap/heap_mem.h"
#include "luajit/layout.h"

_Static_assert(DUMP_STACK_MAX == DUMP_MAX_FRAMES, "the model names the reader's cap");

#define READ_BYTES	(256ull << 20)	/* stacks, prototypes' debug info, tables counted */
#define READ_NS		(5ull * 1000000000ull)

/* The chunk as a file name: "@/abs/t.lua" is "/abs/t.lua". */
static const char *chunk_file(const char *chunk)
{
	return chunk && (*chunk == '@' || *chunk == '=') ? chunk + 1 : chunk;
}

struct local_to {
	struct dump *d;
	struct dump_frame *f;
};

static void add_local(void *ud, const char *name, const char *value)
{
	struct local_to *to = ud;

	dump_add_local(to->d, to->f, name, value);
}

static void add_frames(struct symbolizer *sym, const struct heap_ctx *c,
		       const struct dump_thread_raw *raw, const struct dump_opts *o,
		       struct dump_thread *t, struct dump *d)
{
	struct dump_losses *loss = &d->loss;
	struct frame_sym *fs = calloc(raw->n ? raw->n : 1, sizeof(*fs));
	struct strbuf sb = STRBUF_INIT;

	if (!fs)
		return;
	sym_stack(sym, raw->frames, raw->n, fs);
	for (uint32_t i = 0; i < raw->n; i++) {
		const struct frame_sym *f = &fs[i];
		struct dump_frame *df;

		sb_reset(&sb);
		if (f->kind == SYM_UNKNOWN) {
			loss->unknown_frames++;
			sb_puts(&sb, "?");
		} else {
			frame_put(&sb, f, 'f', true);	/* unnamed: "file.lua:12" */
		}
		df = dump_add_frame(d, t, sb_str(&sb),
				    f->kind == SYM_LUA ? chunk_file(f->chunk) : NULL,
				    f->kind == SYM_LUA ? f->line : -1,
				    f->kind == SYM_LUA ? f->firstline : -1);
		if (!df)
			break;	/* the dump is full: counted */
		if (o->locals && f->kind == SYM_LUA)
			dump_frame_locals(c, raw, i, o->width, add_local,
					  &(struct local_to){ d, df });
	}
	sb_free(&sb);
	free(fs);
}

/* Why reading must stop before the next thread: the stacks' budget or a
 * signal, in read_why; NULL while it may go on. */
static const char *read_ended(struct heap_mem *mem, struct dump *d)
{
	static const char *const why[] = {
		[HEAP_MEM_BYTES] = "the read budget of 256 MiB was spent",
		[HEAP_MEM_TIME] = "the read deadline of 5 s passed",
		[HEAP_MEM_STOPPED] = "a signal stopped it",
	};
	enum heap_mem_end e = heap_mem_spent(mem);

	if (e == HEAP_MEM_OK)
		return NULL;
	if (!d->loss.read_why[0])
		snprintf(d->loss.read_why, sizeof(d->loss.read_why), "%s", why[e]);
	return d->loss.read_why;
}

static void add_thread(struct symbolizer *sym, const struct heap_snapshot *snap, uint64_t L,
		       const struct dump_opts *o, struct dump_thread_raw *raw,
		       struct dump_requests *reqs, struct dump *d)
{
	struct dump_thread *t;
	int rc = dump_thread_read(&snap->ctx, L, raw);

	/* A thread read while the budget ran out was cut by it, not torn
	 * by the target: counted as not read. */
	if (read_ended(snap->ctx.mem, d)) {
		d->loss.not_read++;
		return;
	}
	if (rc) {
		d->loss.unreadable++;
		return;
	}
	t = dump_add_thread(d, raw->L, dump_status_name(raw->status));
	if (!t)
		return;
	t->main = raw->main;
	t->current = raw->current;
	t->fresh = raw->fresh;
	t->torn = raw->torn;
	t->cut = raw->cut;
	d->loss.torn += raw->torn;
	d->loss.cut += raw->cut;
	add_frames(sym, &snap->ctx, raw, o, t, d);
	dump_requests_read(reqs, &snap->ctx, raw, t);
}

void dump_build(struct symbolizer *sym, const struct heap_snapshot *snap,
		const struct dump_opts *o, struct dump *d)
{
	struct dump_thread_raw *raw = malloc(sizeof(*raw));
	/* The stacks get a budget of their own: a walk that spent its own
	 * must still leave the running thread readable. */
	struct heap_budget b = { heap_mem_bytes_read(snap->ctx.mem) + READ_BYTES,
				 clock_ns(CLOCK_MONOTONIC) + READ_NS, o->stop };
	struct dump_requests reqs;
	uint64_t cur;
	size_t i;

	if (!raw)
		return;
	dump_requests_init(&reqs, o->with_query);
	d->loss.bad_links = snap->st.bad_links;
	d->loss.cycles = snap->st.cycles;
	d->loss.walk_ended = heap_walk_ended(snap, d->loss.walk_why, sizeof(d->loss.walk_why)) != NULL;
	heap_mem_set_budget(snap->ctx.mem, &b);
	/* The running thread first: whatever ends the reading, it is read. */
	cur = heap_ref(&snap->ctx, snap->ctx.g + snap->ctx.lay->g_cur_L);
	if (cur)
		add_thread(sym, snap, cur, o, raw, &reqs, d);
	for (i = 0; i < snap->n && !read_ended(snap->ctx.mem, d); i++)
		if (snap->objs[i].type == HT_THREAD && snap->objs[i].addr != cur)
			add_thread(sym, snap, snap->objs[i].addr, o, raw, &reqs, d);
	for (; i < snap->n; i++)	/* listed, never read */
		d->loss.not_read += snap->objs[i].type == HT_THREAD && snap->objs[i].addr != cur;
	free(raw);
	dump_requests_finish(&reqs, d);
	if (o->sort_age)
		dump_sort_age(d);
	else
		dump_sort(d);
}
