/* Building a dump (see dump_build.h). */
#include "symbolize/dump_build.h"

#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "model/frame_fmt.h"
#include "symbolize/symbolize.h"
#include "target/dump_thread.h"

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
		if (f->kind == FRAME_UNKNOWN) {
			loss->unknown_frames++;
			sb_puts(&sb, "?");
		} else {
			frame_put(&sb, f, 'f', true);	/* unnamed: "file.lua:12" */
		}
		df = dump_add_frame(t, sb_str(&sb), f->kind == FRAME_LUA ? chunk_file(f->chunk) : NULL,
				    f->kind == FRAME_LUA ? f->line : -1,
				    f->kind == FRAME_LUA ? f->firstline : -1);
		if (o->locals && f->kind == FRAME_LUA)
			dump_frame_locals(c, raw, i, o->width, add_local, df);
	}
	sb_free(&sb);
	free(fs);
}

void dump_build(struct symbolizer *sym, const struct heap_snapshot *snap,
		const struct dump_opts *o, struct dump *d)
{
	struct dump_thread_raw *raw = malloc(sizeof(*raw));

	if (!raw)
		return;
	d->loss.bad_links = snap->st.bad_links;
	d->loss.walk_ended = heap_walk_ended(snap, d->loss.walk_why, sizeof(d->loss.walk_why)) != NULL;
	for (size_t i = 0; i < snap->n; i++) {
		struct dump_thread *t;

		if (snap->objs[i].type != HT_THREAD)
			continue;
		if (dump_thread_read(&snap->ctx, snap->objs[i].addr, raw)) {
			d->loss.unreadable++;
			continue;
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
	}
	free(raw);
	dump_sort(d);
}
