/* Building a dump (see dump_build.h). */
#include "symbolize/dump_build.h"

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

#define READ_BYTES	(256ull << 20)	/* stacks, prototypes' debug info, tables counted */
#define READ_NS		(5ull * 1000000000ull)

/* The chunk as a file name: "@/abs/t.lua" is "/abs/t.lua". */
static const char *chunk_file(const char *chunk)
{
	return chunk && (*chunk == '@' || *chunk == '=') ? chunk + 1 : chunk;
}

static void add_local(void *ud, const char *name, const char *value)
{
	dump_add_local(ud, name, value);
}

static void add_frames(struct symbolizer *sym, const struct heap_ctx *c,
		       const struct dump_thread_raw *raw, const struct dump_opts *o,
		       struct dump_thread *t, struct dump_losses *loss)
{
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
		df = dump_add_frame(t, sb_str(&sb), f->kind == SYM_LUA ? chunk_file(f->chunk) : NULL,
				    f->kind == SYM_LUA ? f->line : -1,
				    f->kind == SYM_LUA ? f->firstline : -1);
		if (o->locals && f->kind == SYM_LUA)
			dump_frame_locals(c, raw, i, o->width, add_local, df);
	}
	sb_free(&sb);
	free(fs);
}

static void add_thread(struct symbolizer *sym, const struct heap_snapshot *snap, uint64_t L,
		       const struct dump_opts *o, struct dump_thread_raw *raw,
		       struct dump_requests *reqs, struct dump *d)
{
	struct dump_thread *t;

	if (dump_thread_read(&snap->ctx, L, raw)) {
		d->loss.unreadable++;
		return;
	}
	t = dump_add_thread(d, raw->L, dump_status_name(raw->status));
	t->main = raw->main;
	t->current = raw->current;
	t->fresh = raw->fresh;
	t->torn = raw->torn;
	t->cut = raw->cut;
	d->loss.torn += raw->torn;
	d->loss.cut += raw->cut;
	add_frames(sym, &snap->ctx, raw, o, t, &d->loss);
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

	if (!raw)
		return;
	dump_requests_init(&reqs, o->with_query);
	d->loss.bad_links = snap->st.bad_links;
	d->loss.walk_ended = heap_walk_ended(snap, d->loss.walk_why, sizeof(d->loss.walk_why)) != NULL;
	heap_mem_set_budget(snap->ctx.mem, &b);
	for (size_t i = 0; i < snap->n; i++)
		if (snap->objs[i].type == HT_THREAD)
			add_thread(sym, snap, snap->objs[i].addr, o, raw, &reqs, d);
	/* The running thread, even when the walk ended before it. */
	cur = heap_ref(&snap->ctx, snap->ctx.g + snap->ctx.lay->g_cur_L);
	if (cur && heap_snapshot_find(snap, cur) == HASHIDX_NONE)
		add_thread(sym, snap, cur, o, raw, &reqs, d);
	free(raw);
	dump_requests_finish(&reqs, d);
	if (o->sort_age)
		dump_sort_age(d);
	else
		dump_sort(d);
}
